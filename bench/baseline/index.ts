/** Workflow entry of the bench's baseline worker: bare workflows with nothing of the agent runtime. */
export { bareSteps } from './bare-steps';
export { signalThenActivity } from './signal-then-activity';
