/**
 * Two projects, so a change gets feedback without a Temporal server:
 * - unit (test/unit/): pure tests. No server, no worker, no client connection, no setup file that
 *   loads the SDK's native runtime; child processes only where they need no server. `npm run test:unit`.
 * - integration (the rest of test/): against one real Temporal dev server and one workflow bundle,
 *   made by its global setup. Jest runs a project's global setup only when a test of that project
 *   runs, so `npx jest test/unit/tools.test.ts` starts no server either.
 * `npm test` runs both. The cluster test is its own run: `npm run test:cluster` (jest.cluster.config.js).
 */
const transform = {
  '^.+\\.ts$': ['@swc/jest'],
  // jose (the gateway's JWT checks) ships ES modules only. Node >= 20.19 requires them natively, but
  // jest's module system does not before Node 24.9: compile its files to CommonJS for the tests.
  '/node_modules/jose/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
};
/** node_modules stay untransformed, except the ES-module-only packages above. */
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];

const unit = {
  displayName: 'unit',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/unit'],
  testMatch: ['**/*.test.ts'],
  transform,
  transformIgnorePatterns,
  // Only the guard that fails the run when a test leaves a process behind.
  globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/unit-global-teardown.ts',
};

const integration = {
  displayName: 'integration',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/', '<rootDir>/test/cluster/'],
  transform,
  transformIgnorePatterns,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/setup-runtime.ts'],
};

module.exports = {
  projects: [unit, integration],
  testTimeout: 120000,
  // Two cores: workers and the dev server need CPU too.
  maxWorkers: 2,
};
