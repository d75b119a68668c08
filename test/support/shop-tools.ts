// The refund, delete and mail tools the tool-policy and hook tests gate, each recording the calls that ran; and waiting for approvals.
import { z } from 'zod';
import type { RunHandle } from '../../src/client/run-handle';
import { defineTool } from '../../src/tools/define-tool';
import { eventually } from './test-env';

/** One execution of a shop tool: which tool, with which arguments. */
export interface ShopExecution {
  tool: string;
  args: Record<string, unknown>;
}

/** `refund`, `delete_user` and `send_email`, recording each execution in `executions` (in the order they ran). */
export function createShopTools() {
  const executions: ShopExecution[] = [];
  const refund = defineTool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ order: z.string(), amount: z.number() }),
    execute: (args) => {
      executions.push({ tool: 'refund', args });
      return `refunded ${args.amount} on ${args.order}`;
    },
  });
  const deleteUser = defineTool({
    name: 'delete_user',
    description: 'Deletes a user.',
    parameters: z.object({ user: z.string() }),
    execute: (args) => {
      executions.push({ tool: 'delete_user', args });
      return `deleted ${args.user}`;
    },
  });
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    parameters: z.object({ to: z.string(), subject: z.string() }),
    execute: (args) => {
      executions.push({ tool: 'send_email', args });
      return `sent to ${args.to}`;
    },
  });
  return { refund, deleteUser, sendEmail, executions };
}

/** The run's pending approval requests, once there are `count` of them. */
export function pendingApprovalsOf(run: RunHandle, count: number) {
  return eventually(async () => {
    const status = await run.status();
    return status.pendingApprovals.length === count ? status.pendingApprovals : undefined;
  });
}
