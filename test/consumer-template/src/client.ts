import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from 'durable-agents';
import { approveRefund, invalidConfigError, runSupportCase } from './support-runs.js';

/**
 * Drives the worker of this project like an application would and prints a JSON summary; exits
 * non-zero when any answer is not the expected one.
 */
const taskQueue = process.env.CONSUMER_TASK_QUEUE ?? 'consumer-support';
const script = (name: string) => fileURLToPath(new URL(`../scripts/${name}`, import.meta.url));

const agents = await AgentClient.connect(undefined, { taskQueue });
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
try {
  const refund = await approveRefund(agents, script('refund.yaml'));
  const supportCase = await runSupportCase(client, taskQueue, script('support-case.yaml'));
  const configError = invalidConfigError();

  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  expect(refund.pendingTool === 'refund', `the pending approval is for refund (got ${refund.pendingTool})`);
  expect(refund.approvalId === 'step-2.call-1', `the approval id is step-2.call-1 (got ${refund.approvalId})`);
  expect(refund.delivery === 'update', `the decision was confirmed by an update (got ${refund.delivery})`);
  expect(refund.stopReason === 'completed', `the gated run completed (got ${refund.stopReason})`);
  expect(refund.output.includes('Refunded 25 EUR on order 42'), 'the answer quotes the refund');
  expect(refund.output.includes('"status":"shipped"'), 'the answer quotes the order lookup');
  expect(refund.tools.find((tool) => tool.name === 'refund')?.approvalStatus === 'approved', 'the refund result is approved');
  expect(refund.tools.find((tool) => tool.name === 'lookup_order')?.approvalStatus === 'not_required', 'the lookup needed no approval');
  expect(supportCase.ticket === 'ticket:where-is-order-7', `the own activity filed the ticket (got ${supportCase.ticket})`);
  expect(supportCase.answer.includes('"status":"delivered"'), 'supportCase returned the child agent’s answer');
  expect(configError?.code === 'AgentConfigError', 'an invalid config throws AgentConfigError');
  console.log(JSON.stringify({ ok: problems.length === 0, problems, refund, supportCase, configError }, null, 2));
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  await agents.close();
  await connection.close();
}
