// The `events` query of a run that is still starting (resolving its agent, reading a fork's origin), before its own handlers exist.
import { setHandler } from '@temporalio/workflow';
import { eventsQuery, MessageDescription } from '../../protocol/run-messages';

/**
 * Answers `events` with an empty page until the run's handlers replace it, so a client that
 * follows the run from its start (the library's `events()`, the gateway's feeds, the MCP server)
 * waits for the first events instead of failing with "no handler registered". Queries add nothing
 * to the history: no patch.
 */
export function answerEventsWhileStarting(): void {
  setHandler(eventsQuery, (cursor) => ({ events: [], nextCursor: cursor, missed: 0, finished: false }), { description: MessageDescription.events });
}
