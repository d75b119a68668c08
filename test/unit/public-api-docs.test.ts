import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import ts from 'typescript';

/**
 * The public API is what the seven entry points re-export, and exactly the names listed below: a
 * name added or removed fails here until the list says so, so the surface changes only on purpose.
 * Every export carries TSDoc: values (functions, classes, consts) a description and an `@example`;
 * types a description; the public methods of exported classes a description. The check reads the
 * declarations through the compiler, so an export that a re-export renames is covered too.
 */

const root = path.resolve(__dirname, '..', '..');
const entryPoints: ReadonlyArray<{ name: string; file: string }> = [
  { name: 'durable-agents', file: 'src/index.ts' },
  { name: 'durable-agents/worker', file: 'src/worker/index.ts' },
  { name: 'durable-agents/workflow', file: 'src/workflow-api/index.ts' },
  { name: 'durable-agents/testing', file: 'src/testing/index.ts' },
  { name: 'durable-agents/console', file: 'src/console/index.ts' },
  { name: 'durable-agents/skills', file: 'src/skills/index.ts' },
  { name: 'durable-agents/gateway', file: 'src/gateway/index.ts' },
];

/** What users write, by entry point (sorted as `Array.prototype.sort` sorts). */
const publicNames: Record<string, string[]> = {
  'durable-agents': [
    'AgentClient',
    'AgentClientOptions',
    'AgentConfig',
    'AgentConfigError',
    'AgentConfigInput',
    'AgentDescription',
    'AgentName',
    'AgentNotFoundError',
    'AgentOffer',
    'AgentOverrideError',
    'AgentOverrides',
    'AgentReference',
    'AgentRunInput',
    'AgentRunResult',
    'AgentRunWorkflow',
    'AgentRuntimeError',
    'AgentScheduleDescription',
    'AgentScheduleSummary',
    'AgentSchedules',
    'AgentVersionRef',
    'ApprovalDecision',
    'ApprovalOutcome',
    'ApprovalRefusedError',
    'ApprovalRequest',
    'ApprovalStatus',
    'ArmSummary',
    'AssistantMessage',
    'BuildHoldings',
    'CallDecider',
    'Dataset',
    'DatasetEvaluationOptions',
    'DatasetEvaluationReport',
    'DatasetExample',
    'DatasetExampleInput',
    'DatasetHeader',
    'DecideOptions',
    'DecisionClaims',
    'DecisionProofOptions',
    'DecisionReceipt',
    'DecisionRetries',
    'DecisionSigningKey',
    'DecisionUnverifiedError',
    'DeploymentBuild',
    'DeploymentDescription',
    'DeploymentError',
    'EmptyMessageError',
    'ErrorCode',
    'ErrorCodeValue',
    'EvaluationOptions',
    'EvaluationReport',
    'EventPage',
    'ExampleResult',
    'ExampleScore',
    'ExperimentArm',
    'ExperimentExample',
    'ExperimentOptions',
    'ExperimentReport',
    'ForkEditRequest',
    'ForkOptions',
    'HandoffRecord',
    'HookFailureReport',
    'HookPoint',
    'InvalidMessageError',
    'JsonSchema',
    'LiveSnapshot',
    'McpServerConfig',
    'Message',
    'ModelTextSnapshot',
    'ModelUsage',
    'PayloadTooLargeError',
    'PendingApprovals',
    'PlanArtifact',
    'ProgressNote',
    'ProviderLimitWait',
    'QueuedThreadMessage',
    'RecordedRunSelection',
    'RetryableToolError',
    'RunComparison',
    'RunConcurrency',
    'RunEvent',
    'RunEventType',
    'RunHandle',
    'RunPhase',
    'RunPriority',
    'RunStatus',
    'RunSummary',
    'RunTimeouts',
    'SCHEDULE_OVERLAP_POLICIES',
    'ScheduleAction',
    'ScheduleActionSummary',
    'ScheduleCreateOptions',
    'ScheduleError',
    'ScheduleInvalidError',
    'ScheduleOverlap',
    'ScheduleSpecOptions',
    'ScheduleSpecView',
    'ScheduledRun',
    'ScheduledRunAction',
    'ScheduledThreadAction',
    'ScoreInput',
    'ScoreValue',
    'Scorer',
    'ScorerSpec',
    'SearchAttributesMissingError',
    'SendOptions',
    'StartRunOptions',
    'StepDivergence',
    'StopReason',
    'TemporalTarget',
    'TemporalUnreachableError',
    'ThreadClosedPolicy',
    'ThreadDeletion',
    'ThreadError',
    'ThreadFilter',
    'ThreadHandle',
    'ThreadMessageReceipt',
    'ThreadOptions',
    'ThreadPhase',
    'ThreadPolicy',
    'ThreadResult',
    'ThreadSettings',
    'ThreadStatus',
    'ThreadSummary',
    'ThreadTranscript',
    'Tool',
    'ToolCall',
    'ToolContext',
    'ToolDecision',
    'ToolDefinition',
    'ToolMessage',
    'ToolPolicyAction',
    'ToolPolicyMatch',
    'ToolPolicyRule',
    'ToolProgressSnapshot',
    'ToolResult',
    'ToolResultMetadata',
    'ToolResultStatus',
    'ToolSpec',
    'TurnHandle',
    'TurnMessage',
    'TurnResult',
    'TurnTranscript',
    'Usage',
    'UsageSummary',
    'UserMessage',
    'WorkerDeployments',
    'agentConfigSchema',
    'defineTool',
    'describeAgent',
    'evaluateDataset',
    'evaluateRuns',
    'exportDataset',
    'issueDecisionProof',
    'loadAgentConfigFile',
    'loadAgentDirectory',
    'loopDetectionSchema',
    'mcpServerSchema',
    'parseAgentConfig',
    'parseRunConcurrency',
    'parseRunPriority',
    'providerLimitsSchema',
    'queryQueueInterceptor',
    'readDataset',
    'readDecisionSigningKey',
    'renderExperimentMarkdown',
    'resolveTemporalTarget',
    'runConcurrencySchema',
    'runExperiment',
    'runPrioritySchema',
    'runTimeoutsSchema',
    'toolPolicySchema',
    'writeDataset',
  ],
  'durable-agents/worker': [
    'A2aPushKeys',
    'AgentDefinition',
    'AgentDefinitionError',
    'AgentDefinitionInput',
    'AgentDeploymentVersion',
    'AgentPlugin',
    'AgentPluginOptions',
    'AgentTelemetryOptions',
    'AgentTelemetrySetup',
    'AgentWorkerOptions',
    'AnyHook',
    'ArtifactNotFoundError',
    'ArtifactStore',
    'ArtifactStoreUnavailableError',
    'DEFAULT_MODEL_PRICES',
    'DecisionPublicKeys',
    'FolderArtifactStore',
    'FolderMemoryStore',
    'ForgetRequest',
    'ForgetResourceOptions',
    'ForgetResourceReport',
    'HOOK_POINTS',
    'Hook',
    'HookDefinition',
    'HookDefinitionError',
    'HookEventBase',
    'HookEvents',
    'HookPoint',
    'HookResults',
    'InstructionsContext',
    'InstructionsProvider',
    'MEMORY_LIMITS',
    'MemoryEntry',
    'MemoryInputError',
    'MemorySource',
    'MemoryStore',
    'MemoryUnavailableError',
    'ModelError',
    'ModelPrice',
    'ModelPrices',
    'ModelProvider',
    'ModelRegistry',
    'ModelRequest',
    'ModelResponse',
    'ModelScript',
    'ModelScriptInput',
    'OVERRIDABLE_FIELDS',
    'OverridableField',
    'PostgresMemoryStore',
    'PostgresMemoryStoreOptions',
    'PriceTable',
    'RecallQuery',
    'RememberRequest',
    'ResourceStores',
    'ResourceThreadStore',
    'ResourceThreadsDeleted',
    'RetryableToolError',
    'S3ArtifactStore',
    'S3ArtifactStoreOptions',
    'SUPPORTED_TEMPORAL_RANGE',
    'ScriptedCall',
    'ScriptedModel',
    'ScriptedModelOptions',
    'ScriptedReply',
    'Tool',
    'ToolCallVerdict',
    'ToolContext',
    'ToolDefinition',
    'agentWorkerDeploymentOptions',
    'artifactStoreFromEnvironment',
    'createAgentWorker',
    'createMemoryTools',
    'dataConverterFromEnvironment',
    'defaultModelRegistry',
    'defineAgent',
    'defineHook',
    'defineTool',
    'deploymentVersionFromEnvironment',
    'forgetResource',
    'loadAgentFolder',
    'loadModelScript',
    'loadPriceFile',
    'memoryStoreFromEnvironment',
    'modelScriptSchema',
    'probeArtifactStore',
    'readA2aPushKeys',
    'readDecisionPublicKeys',
    'registerSearchAttributes',
    'startAgentTelemetry',
    'telemetryOptionsFromEnvironment',
  ],
  'durable-agents/workflow': [
    'AgentConfig',
    'AgentConfigInput',
    'AgentCostUsdAttribute',
    'AgentEvaluationAttribute',
    'AgentForkOfAttribute',
    'AgentLastActivityAttribute',
    'AgentName',
    'AgentNameAttribute',
    'AgentOverrides',
    'AgentReference',
    'AgentResourceAttribute',
    'AgentRunInput',
    'AgentRunResult',
    'AgentRunWorkflow',
    'AgentSkillSourcesAttribute',
    'AgentStatusAttribute',
    'AgentThreadInput',
    'AgentVersionAttribute',
    'ApprovalDecision',
    'ApprovalOutcome',
    'ApprovalRequest',
    'AwaitTurnReply',
    'ConcurrencyCap',
    'ConcurrencyWireName',
    'DEFAULT_TASK_QUEUE',
    'DEPLOYMENT_VERSION_ATTRIBUTE',
    'EventPage',
    'InjectedMessage',
    'LimiterStatus',
    'McpServerConfig',
    'Message',
    'ProviderLimitWireName',
    'RunAgentOptions',
    'RunEvent',
    'RunEventType',
    'RunStatus',
    'RunTimeouts',
    'SkillBatch',
    'SkillChange',
    'SkillChangeKind',
    'SkillFileError',
    'SkillInfo',
    'SlotsStatus',
    'StopReason',
    'ThreadClosedPolicy',
    'ThreadMessage',
    'ThreadMessageReceipt',
    'ThreadPolicy',
    'ThreadResult',
    'ThreadSettings',
    'ThreadStatus',
    'ToolCall',
    'ToolResult',
    'TurnResult',
    'Usage',
    'WireName',
    'agentCapKey',
    'approvalSignal',
    'awaitTurnUpdate',
    'checkVersionSignal',
    'closeThreadSignal',
    'closeThreadUpdate',
    'concurrencySlotsWorkflowId',
    'decideApprovalUpdate',
    'eventsQuery',
    'injectMessageSignal',
    'injectMessageUpdate',
    'limitKey',
    'limiterStatusQuery',
    'limiterWorkflowId',
    'runAgent',
    'sendMessageSignal',
    'sendMessageUpdate',
    'skillsChangedSignal',
    'slotsStatusQuery',
    'startAgent',
    'startCapKey',
    'statusQuery',
    'threadQuery',
  ],
  'durable-agents/testing': [
    'AgentTestServer',
    'AgentTestWorker',
    'AgentTestWorkerOptions',
    'ModelScript',
    'ModelScriptInput',
    'ScriptedCall',
    'ScriptedModel',
    'ScriptedModelOptions',
    'ScriptedReply',
    'agentSearchAttributes',
    'loadModelScript',
    'modelScriptSchema',
    'startAgentTestWorker',
  ],
  'durable-agents/console': [
    'ApproverRule',
    'ConsoleAccess',
    'ConsoleOptions',
    'ConsoleServerOptions',
    'RunningConsole',
    'consoleRequestListener',
    'createConsoleApp',
    'readConsoleAccess',
    'startConsole',
  ],
  'durable-agents/gateway': [
    'ErrorBody',
    'FeedRegistry',
    'FeedRequests',
    'GatewayAccess',
    'GatewayErrorCode',
    'GatewayFeeds',
    'GatewayHandler',
    'GatewayJwtSettings',
    'GatewayKey',
    'GatewayOptions',
    'GatewayScope',
    'GatewayServerOptions',
    'GatewayStreamLimits',
    'JwtKeySource',
    'RateLimit',
    'RequestLogEntry',
    'RequestLogger',
    'RunningGateway',
    'StreamLimitStats',
    'createGatewayHandler',
    'hashGatewayKey',
    'readGatewayAccess',
    'startGateway',
  ],
  'durable-agents/skills': [
    'AllowedToolsResolver',
    'DictToolResolver',
    'FirstMatchResolver',
    'GitPollingWatcher',
    'GitPollingWatcherOptions',
    'GitSourceLocation',
    'LoadedSkills',
    'LocalFolderWatcher',
    'LocalFolderWatcherOptions',
    'NotifyResult',
    'RunNotifier',
    'RunNotifierOptions',
    'SkillBatch',
    'SkillBatchListener',
    'SkillChange',
    'SkillChangeKind',
    'SkillEventBus',
    'SkillEventHandler',
    'SkillEvents',
    'SkillFileError',
    'SkillInfo',
    'SkillMetrics',
    'SkillRegistry',
    'SkillSetTracker',
    'SkillSnapshot',
    'SkillSyncManager',
    'SkillSyncManagerOptions',
    'SkillWatcher',
    'ToolResolver',
    'WatcherBatch',
    'logSkillEvents',
    'parseGitSource',
    'readSkillFolder',
  ],
};

interface Problem {
  entryPoint: string;
  name: string;
  file: string;
  missing: string;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath).options;
}

/**
 * The TSDoc block of a declaration: the last `/** *\/` comment before it, as API Extractor reads it.
 * A file's opening comment is attached to its first declaration too, so taking every block would
 * let a module comment pass for the first export's documentation.
 */
function docBlock(declaration: ts.Declaration): ts.JSDoc | undefined {
  return ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
}

function docBlocks(symbol: ts.Symbol): ts.JSDoc[] {
  return (symbol.declarations ?? []).flatMap((declaration) => docBlock(declaration) ?? []);
}

function hasDescription(symbol: ts.Symbol): boolean {
  return docBlocks(symbol).some((block) => (ts.getTextOfJSDocComment(block.comment) ?? '').trim().length > 0);
}

/**
 * A class member's description as an editor shows it: its own, or else the one it inherits from the
 * class or interface it overrides or implements (the SDK's plugin hooks, for example).
 */
function hasMemberDescription(member: ts.Symbol, checker: ts.TypeChecker): boolean {
  return hasDescription(member) || ts.displayPartsToString(member.getDocumentationComment(checker)).trim().length > 0;
}

function hasExample(symbol: ts.Symbol): boolean {
  return docBlocks(symbol).some((block) =>
    (block.tags ?? []).some((tag) => tag.tagName.text === 'example' && (ts.getTextOfJSDocComment(tag.comment) ?? '').trim().length > 0),
  );
}

function declarationFile(symbol: ts.Symbol): string {
  const declaration = symbol.declarations?.[0];
  return declaration ? path.relative(root, declaration.getSourceFile().fileName) : '(no declaration)';
}

/** Methods and accessors a caller can reach on the class (own members, not private or protected). */
function publicMembers(classSymbol: ts.Symbol): ts.Symbol[] {
  const members: ts.Symbol[] = [];
  const collect = (table: ts.SymbolTable | undefined): void => {
    table?.forEach((member) => {
      const declaration = member.valueDeclaration ?? member.declarations?.[0];
      if (!declaration) return;
      const callable = ts.isMethodDeclaration(declaration) || ts.isGetAccessorDeclaration(declaration) || ts.isSetAccessorDeclaration(declaration);
      if (!callable) return;
      const modifiers = ts.getCombinedModifierFlags(declaration);
      if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return;
      if (ts.isPrivateIdentifier(declaration.name)) return;
      members.push(member);
    });
  };
  collect(classSymbol.members);
  collect(classSymbol.exports); // static methods
  return members;
}

function findUndocumentedExports(): { problems: Problem[]; checked: number; names: Record<string, string[]>; inputFields: Record<string, string[]> } {
  const program = ts.createProgram({
    rootNames: entryPoints.map((entry) => path.join(root, entry.file)),
    options: { ...compilerOptions(), noEmit: true },
  });
  const checker = program.getTypeChecker();
  const problems: Problem[] = [];
  const names: Record<string, string[]> = {};
  const inputFields: Record<string, string[]> = {};
  let checked = 0;

  for (const entry of entryPoints) {
    const sourceFile = program.getSourceFile(path.join(root, entry.file));
    if (!sourceFile) throw new Error(`${entry.file}: not part of the program`);
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
    if (!moduleSymbol) throw new Error(`${entry.file}: has no module symbol (no exports?)`);

    names[entry.name] = checker
      .getExportsOfModule(moduleSymbol)
      .map((exported) => exported.getName())
      .sort();
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const name = exported.getName();
      if (entry.name === 'durable-agents/workflow' && (name === 'AgentRunInput' || name === 'AgentThreadInput')) {
        inputFields[name] = checker
          .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
          .map((property) => property.getName())
          .sort();
      }
      const file = declarationFile(symbol);
      const report = (missing: string, member?: string): void => {
        problems.push({ entryPoint: entry.name, name: member ? `${name}.${member}` : name, file, missing });
      };
      checked += 1;

      const isValue = (symbol.flags & ts.SymbolFlags.Value) !== 0;
      if (!hasDescription(symbol)) report('description');
      if (isValue && !hasExample(symbol)) report('@example');

      if (symbol.flags & ts.SymbolFlags.Class) {
        for (const member of publicMembers(symbol)) {
          if (!hasMemberDescription(member, checker)) report('description', member.getName());
        }
      }
    }
  }
  return { problems, checked, names, inputFields };
}

describe('public API docs', () => {
  let lines: string[] = [];
  let checked = 0;
  let names: Record<string, string[]> = {};
  let inputFields: Record<string, string[]> = {};

  beforeAll(() => {
    const found = findUndocumentedExports();
    checked = found.checked;
    names = found.names;
    inputFields = found.inputFields;
    lines = found.problems.map((problem) => `${problem.entryPoint}: ${problem.name} (${problem.file}) lacks ${problem.missing}`);
  });

  it('exports exactly the listed names from each entry point', () => {
    expect(names).toEqual(publicNames);
  });

  it('keeps the run and thread inputs users write free of what only the runtime sets (continuation, fork, replay)', () => {
    expect(inputFields).toEqual({
      AgentRunInput: [
        'agent',
        'agents',
        'concurrency',
        'config',
        'historyEventLimit',
        'historySizeLimitBytes',
        'messages',
        'resourceId',
        'task',
        'timeouts',
      ],
      AgentThreadInput: [
        'agent',
        'agents',
        'config',
        'configHash',
        'historyEventLimit',
        'historySizeLimitBytes',
        'messages',
        'pinVersion',
        'settings',
        'timeouts',
      ],
    });
  });

  it('maps every entry point in package.json, for module resolution by exports and by typesVersions', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string } | string>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    for (const entry of entryPoints) {
      const subpath = entry.name.replace(/^durable-agents/, '.');
      const compiled = `./${entry.file.replace(/^src\//, 'dist/').replace(/\.ts$/, '')}`;
      expect({ subpath, target: manifest.exports[subpath] }).toEqual({ subpath, target: { types: `${compiled}.d.ts`, default: `${compiled}.js` } });
      if (subpath !== '.') expect(manifest.typesVersions['*']?.[subpath.slice(2)]).toEqual([`${compiled}.d.ts`]);
    }
  });

  it('gives every export of the entry points TSDoc, with an @example on every value and a description on every public method', () => {
    expect(checked).toBeGreaterThan(50);
    expect(lines).toEqual([]);
  });
});
