// AG-UI's official client (`HttpAgent`) pointed at a gateway, recording the HTTP answers it was given.
import { expect } from '@jest/globals';
import { EventType as AguiEventType, HttpAgent, type BaseEvent, type EventType } from '@ag-ui/client';

/** An `HttpAgent` of `url` for thread `threadId` (a user message added when `text` is given), and every answer's status and error body. */
export function aguiClient(url: string, headers: Record<string, string>, threadId: string, text: string | null, messageId = `${threadId}-m1`) {
  const responses: Array<{ status: number; body: unknown }> = [];
  const client = new HttpAgent({
    url,
    headers,
    threadId,
    fetch: async (target, init) => {
      const response = await fetch(target, init);
      responses.push({ status: response.status, body: response.ok ? null : await response.clone().json() });
      return response;
    },
  });
  if (text !== null) client.addMessage({ id: messageId, role: 'user', content: text });
  return { client, responses };
}

/** Runs the agent once (with `resume` when given), collecting every event the client accepted. */
export async function runAgui(client: HttpAgent, parameters?: Parameters<HttpAgent['runAgent']>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await client.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

/** The events of one type. */
export function ofType<T extends BaseEvent>(events: BaseEvent[], type: EventType): T[] {
  return events.filter((event) => event.type === type) as T[];
}

/** Checks that an AG-UI run started on `threadId` and ended with RUN_ERROR `code` (its message holding `message`), never RUN_FINISHED. */
export function expectRunError(events: BaseEvent[], threadId: string, code: string, message: string): void {
  expect(events[0]).toMatchObject({ type: AguiEventType.RUN_STARTED, threadId });
  expect(events.at(-1)).toMatchObject({ type: AguiEventType.RUN_ERROR, code, message: expect.stringContaining(message) });
  expect(ofType(events, AguiEventType.RUN_FINISHED)).toEqual([]);
}
