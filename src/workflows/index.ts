/** The workflow bundle's entry: every workflow type an agent worker registers. */
export { agentRun } from './run/agent-run';
export { agentWorkerTools } from './run/agent-worker-tools';
export { agentWorkerAgents } from './run/agent-worker-agents';
export { agentThread } from './thread/agent-thread';
export { providerLimiter } from './limits/provider-limiter';
export { concurrencySlots } from './limits/concurrency-slots-workflow';
export { scheduledThreadPost } from './schedule/scheduled-thread-post';
export { a2aPushDelivery } from './push/a2a-push-delivery';
