// The JSON bodies the gateway's routes accept: checked on every request and published in its OpenAPI document.
import { z } from 'zod';
import { THREAD_CLOSED_POLICIES, THREAD_POLICIES, type ThreadClosedPolicy, type ThreadPolicy } from '../protocol/thread-types';

/** An agent config as JSON (the library validates its fields and names the bad ones). */
const configObject = z.record(z.string(), z.unknown()).describe('An inline agent config (docs/config.md); give this or `agent`');
const agentName = z.string().min(1).max(300).describe("A named agent the workers define: 'support', 'support@<version or label>'");
const overrides = z.record(z.string(), z.unknown()).describe("Fields the named agent's definition lets callers override");
const handoffAgents = z.record(z.string(), configObject).describe("Configs of the agents an inline config's handoffs name");

/** `POST /v1/runs`. */
export const startRunBody = z
  .object({
    agent: agentName.optional(),
    config: configObject.optional(),
    task: z.string().describe("The run's first message"),
    workflowId: z.string().min(1).max(200).optional().describe('Your own id (idempotent start): default <agent>-<random>'),
    resourceId: z.string().min(1).max(200).optional().describe('Who the run is for (user:42): memory scope'),
    overrides: overrides.optional(),
    agents: handoffAgents.optional(),
  })
  .strict();

/** `POST /v1/runs/:id/messages`. */
export const injectBody = z.object({ text: z.string().describe('A user message the run reads before its next model call') }).strict();

/** `POST /v1/threads/:id/messages`: the message, and how to create the thread when it does not exist. */
export const threadMessageBody = z
  .object({
    text: z.string(),
    messageId: z.string().min(1).max(200).optional().describe('Unique per thread: a resend with the same id is answered once'),
    policy: z
      .enum(THREAD_POLICIES as [ThreadPolicy, ...ThreadPolicy[]])
      .optional()
      .describe('What this message does while a turn runs'),
    agent: agentName.optional().describe('Creating: a named agent'),
    config: configObject.optional().describe('Creating: an inline config'),
    overrides: overrides.optional(),
    agents: handoffAgents.optional(),
    pin: z.boolean().optional().describe('Creating with a named agent: stay on the version resolved now'),
    resourceId: z.string().min(1).max(200).optional(),
    whenClosed: z.enum(THREAD_CLOSED_POLICIES as [ThreadClosedPolicy, ...ThreadClosedPolicy[]]).optional(),
    idleTimeout: z.union([z.string(), z.number()]).optional().describe('Close after this long without a message: 30d, 12h, or milliseconds'),
  })
  .strict();

/** `POST /v1/approvals/:runId/:approvalId`. The decider is the caller's principal, never a body field. */
export const decisionBody = z
  .object({
    decision: z.enum(['approve', 'reject']),
    reason: z.string().max(4_000).optional().describe('Shown to the model (a rejection needs one)'),
  })
  .strict();

/** The body of every error answer. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    limitBytes: z.number().optional(),
    problems: z.array(z.string()).optional(),
    offered: z.array(z.string()).optional(),
    decidedBy: z.string().nullable().optional(),
    decidedVia: z.string().nullable().optional(),
    outcome: z.string().optional(),
    retryAfterSeconds: z.number().optional(),
  }),
});
