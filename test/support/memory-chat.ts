// The AI SDK's own chat (`AbstractChat`, what `useChat` wraps) with its state in memory, for tests without React.
import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/** The state container `useChat` keeps in React, as plain fields: every rule of the chat stays the SDK's. */
class MemoryChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A chat as `useChat` drives it: `sendMessage`, `addToolApprovalResponse`, `resumeStream`, `messages`, `status`. */
export class MemoryChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new MemoryChatState() });
  }
}
