/** The workflow bundle's entry: every workflow type the worker registers. */
export { agentRun } from './agent-run';
export { bareSteps } from './bare-steps';
export { signalThenActivity } from './signal-then-activity';
