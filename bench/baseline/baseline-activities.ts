import { Context } from '@temporalio/activity';

/**
 * Activities of the bench's baseline workflows. `onStart` lets the bench time when an activity
 * began (in the worker's process).
 */
export function createBaselineActivities(onStart?: (workflowId: string) => void) {
  return {
    async noop(step: number): Promise<number> {
      onStart?.(Context.current().info.workflowExecution?.workflowId ?? '');
      return step;
    },
    /** `replyBytes` of text, for `bareStepsLikeAnAgent`'s payload sizes. */
    async echo(input: string, replyBytes: number): Promise<string> {
      onStart?.(Context.current().info.workflowExecution?.workflowId ?? '');
      return input.slice(0, replyBytes).padEnd(replyBytes, 'o');
    },
  };
}

export type BaselineActivities = ReturnType<typeof createBaselineActivities>;
