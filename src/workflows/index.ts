/** The workflow bundle's entry: every workflow type an agent worker registers. */
export { agentRun } from './agent-run';
export { agentWorkerTools } from './agent-worker-tools';
export { agentThread } from './agent-thread';
export { providerLimiter } from './provider-limiter';
export { concurrencySlots } from './concurrency-slots';
