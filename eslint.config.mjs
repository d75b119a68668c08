// ESLint: type-aware rules for promises everywhere, and the Temporal samples' rule that workflow
// code (the deterministic sandbox) imports no Node modules. Layout is Prettier's (npm run format):
// eslint-config-prettier, last, turns off the rules that would argue with it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Worker code and the layers beneath the client never reach up into the client library or the CLI.
const noClientOrCli = {
  group: ['../client', '../client/*', '../cli/*', '../../client/*', '../../cli/*'],
  message: 'Worker code and the shared layers do not import the client or the CLI.',
};

// What workflow code may not import: it runs in Temporal's deterministic sandbox, replayed from history.
const sandboxPatterns = [
  {
    group: ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net'],
    message: 'Workflow code runs in a deterministic sandbox: no Node modules.',
  },
  {
    group: ['../activities', '../activities/*', '../../activities', '../../activities/*'],
    message: 'Import activities with `import type` only.',
    allowTypeImports: true,
  },
  {
    group: [
      '../worker/*',
      '../../worker/*',
      '../hooks/*',
      '../../hooks/*',
      '../client/*',
      '../../client/*',
      '../cli/*',
      '../../cli/*',
      '../history/*',
      '../../history/*',
      '../models/*',
      '../../models/*',
      '../tools/*',
      '../../tools/*',
      '../skills/*',
      '../../skills/*',
      '../artifacts/*',
      '../../artifacts/*',
      '../connection/*',
      '../../connection/*',
      '../devserver/*',
      '../../devserver/*',
    ],
    message: 'Workflows may import only @temporalio/workflow, src/protocol, src/config and types.',
    allowTypeImports: true,
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.temporal-bin/**',
      '.temporal-data/**',
      'test/histories/**',
      'test/consumer-template/**',
      'test/process-cleanup-fixture/*.js',
      '*.js',
      '*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/workflow-api/**/*.ts', 'src/telemetry/*workflow-interceptors.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: sandboxPatterns }] },
  },
  // Inside src/workflows the layers go one way: the workflows (run/, thread/, limits/) use the step
  // loop (loop/) and the pure rules (rules/); the loop never reaches up into a workflow (what differs
  // reaches it as `state.execution`), and the rules use neither.
  {
    files: ['src/workflows/loop/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...sandboxPatterns,
            {
              group: ['../run/*', '../thread/*', '../limits/*'],
              message: 'The step loop does not import a workflow: pass what differs through state.execution.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/workflows/rules/**/*.ts', 'src/workflows/versioning/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...sandboxPatterns,
            {
              group: ['../run/*', '../thread/*', '../limits/*', '../loop/*'],
              message: 'Pure rules and versioning import no workflow and no step-loop module.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/workflows/limits/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...sandboxPatterns,
            { group: ['../run/*', '../thread/*', '../loop/*'], message: 'The limits workflows share only the pure rules with the agent workflows.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/{activities,worker,hooks,models,tools,artifacts,mcp,budget,history,config,decisions}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [noClientOrCli],
        },
      ],
    },
  },
  {
    // Protocol is loaded by every process, the workflow sandbox included: config's zod schemas
    // stay out of it at runtime (types only), and so do the client and the CLI.
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            noClientOrCli,
            {
              group: ['../config', '../config/*'],
              message: 'Protocol imports config with `import type` only: no zod schema at runtime.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Client processes (library, CLI, console, gateway) start workflows by type; they never run workflow code.
    files: ['src/{client,cli,console,gateway}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../workflows', '../workflows/**', '../../workflows', '../../workflows/**'],
              message: 'Client code imports workflow code with `import type` only; shared pure rules live in src/protocol.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  prettier,
);
