// Queries to one workflow sent one at a time from this process: two at once during a workflow task cost the run and the second query about a second.
import type { Next, WorkflowClientInterceptor, WorkflowQueryInput } from '@temporalio/client';

/** A query waiting for its turn, shared by identical queries that arrive before it is sent. */
interface Waiting {
  key: string;
  result: Promise<unknown>;
}

/**
 * A client interceptor that sends this process's queries to one workflow one at a time, and
 * answers identical queries that wait together with one request.
 *
 * Why: two queries that reach a workflow while its workflow task runs are both held until the
 * task ends, and then the second (and the run's next workflow task) wait about a second more
 * (measured on the dev server with SDK 1.24: a turn of ~100 ms took ~1.1 s with two concurrent
 * `events` queries, ~150 ms with the same queries in a row). A gateway, a console and a library
 * user in one process read the same run at once (a stream's events, a status, a turn's start), so
 * their queries are lined up here. Queries to different workflows still go out in parallel.
 *
 * `AgentClient.connect` installs it; add it to a `Client` you build yourself.
 * @example
 * import { Client } from '@temporalio/client';
 * import { AgentClient, queryQueueInterceptor } from 'durable-agents';
 * const agents = new AgentClient(new Client({ interceptors: { workflow: [queryQueueInterceptor()] } }));
 */
export function queryQueueInterceptor(): WorkflowClientInterceptor {
  return new QueryQueue();
}

class QueryQueue implements WorkflowClientInterceptor {
  /** Per workflow id: when its last query in line settles, and the one still waiting to be sent. */
  private readonly lines = new Map<string, { tail: Promise<unknown>; waiting: Waiting | null }>();

  query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    const workflowId = input.workflowExecution.workflowId;
    const key = identityOf(input);
    const line = this.lines.get(workflowId) ?? { tail: Promise.resolve(), waiting: null };
    // The same query, not yet sent: its answer is at least as fresh as one sent after it.
    if (key !== null && line.waiting?.key === key) return line.waiting.result;
    const waiting: Waiting = { key: key ?? '', result: Promise.resolve() };
    const result = line.tail.then(() => {
      if (line.waiting === waiting) line.waiting = null;
      return next(input);
    });
    waiting.result = result;
    line.waiting = key !== null ? waiting : null;
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    line.tail = tail;
    this.lines.set(workflowId, line);
    void tail.then(() => {
      if (line.tail === tail) this.lines.delete(workflowId);
    });
    return result;
  }
}

/** What makes two queries the same (run, name, arguments), or null when the arguments cannot say. */
function identityOf(input: WorkflowQueryInput): string | null {
  try {
    return JSON.stringify([input.workflowExecution.runId ?? '', input.queryType, input.args, input.queryRejectCondition ?? null]);
  } catch {
    return null;
  }
}
