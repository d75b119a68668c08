/** Workflow entry of the bench's baseline worker: bare workflows with nothing of the agent runtime. */
export { bareSteps } from './bare-steps';
export { bareStepsLikeAnAgent } from './bare-steps-like-an-agent';
export { signalThenActivity } from './signal-then-activity';
