// Server-Sent Events framing for the gateway's streams: one `data:` line of JSON per message, an `id:` where a client may resume.

/** One message of a stream: its JSON and, when a client may continue after it, its SSE id. */
export interface SseMessage {
  data: unknown;
  id: string | null;
}

/** A comment line every 15 s keeps proxies and load balancers from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/** The headers of an SSE response (no caching, no proxy buffering). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * A response body writing `messages` as SSE. When the client goes away the generator is returned
 * (its `finally` blocks run) and `abort` is aborted. `done` (e.g. the AI SDK's `[DONE]`) is sent last.
 */
export function sseBody(messages: AsyncGenerator<SseMessage>, abort: AbortController, done: string | null): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let keepAlive: NodeJS.Timeout | null = null;
  const stop = () => {
    if (keepAlive) clearInterval(keepAlive);
    abort.abort();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      keepAlive = setInterval(() => controller.enqueue(encoder.encode(': keep-alive\n\n')), KEEP_ALIVE_MS);
      keepAlive.unref();
    },
    async pull(controller) {
      try {
        const next = await messages.next();
        if (next.done) {
          if (done !== null) controller.enqueue(encoder.encode(`data: ${done}\n\n`));
          stop();
          controller.close();
          return;
        }
        const { data, id } = next.value;
        controller.enqueue(encoder.encode(`${id !== null ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`));
      } catch (error) {
        stop();
        controller.error(error);
      }
    },
    async cancel() {
      stop();
      await messages.return(undefined);
    },
  });
}
