'use client';
// A chat with a durable agent through the gateway: useChat with the AI SDK's own transport, approvals as buttons, resumed streams.
import { Chat as SdkChat, useChat } from '@ai-sdk/react';
import { DefaultChatTransport, getToolName, isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useMemo, useState, type FormEvent } from 'react';

/** What the chat needs: which thread, which agent, and the signed-in user's credential. */
export interface ChatProps {
  /** The chat's id: the gateway's thread id. Keep it stable (in the URL) so a reload resumes the same thread. */
  chatId: string;
  /** The named agent that answers (it creates the thread on the first message). */
  agent: string;
  /** The user's gateway key or JWT: approvals are decided as its principal. */
  token: string;
  /** Where the gateway's chat route is mounted. Default: this example's route, /api/agents/v1/chat. */
  api?: string;
}

/** Tries of `resumeStream` in a row after a dropped connection (about one a second, while the server restarts). */
const RESUME_TRIES = 30;

/** A chat page's body: the messages as they stream, tool calls with Approve / Reject, the status, and a prompt. */
export function Chat({ chatId, agent, token, api = '/api/agents/v1/chat' }: ChatProps) {
  // The chat is made here and handed to useChat (not its options): useChat's own wrapper of the
  // transport (@ai-sdk/react 3.x) hides `resumeStreamIsReplay`, so a resumed turn, which the gateway
  // replays from its start, would be appended to the text the page had instead of replacing it.
  const chat = useMemo(
    () =>
      new SdkChat<UIMessage>({
        id: chatId,
        transport: new DefaultChatTransport({ api, headers: { authorization: `Bearer ${token}` }, body: { agent } }),
        // Answered approvals go back to the gateway, which decides them and continues the turn.
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      }),
    [chatId, api, token, agent],
  );
  // resume: a reload picks up the turn that is running (GET /v1/chat/:id/stream replays it).
  const { messages, status, error, sendMessage, resumeStream, addToolApprovalResponse } = useChat({ chat, resume: true });
  const [resumeTries, setResumeTries] = useState(0);
  const [input, setInput] = useState('');

  // A dropped connection (or a restarted server) errors the stream: resume it. The gateway replays
  // the running turn with the same message id, so the message is replaced, never doubled.
  useEffect(() => {
    if (status === 'ready') setResumeTries(0);
    if (status !== 'error' || resumeTries >= RESUME_TRIES) return;
    const timer = setTimeout(() => {
      setResumeTries((tries) => tries + 1);
      void resumeStream();
    }, 1000);
    return () => clearTimeout(timer);
  }, [status, error, resumeTries, resumeStream]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!input.trim()) return;
    void sendMessage({ text: input });
    setInput('');
  }

  return (
    <main>
      <ol>
        {messages.map((message) => (
          <li key={message.id} data-role={message.role}>
            {message.parts.map((part, index) => {
              if (part.type === 'text') return <p key={index}>{part.text}</p>;
              if (!isToolUIPart(part)) return null;
              return (
                <div key={index} className="tool" data-state={part.state}>
                  <code>
                    {getToolName(part)}({JSON.stringify(part.input)})
                  </code>
                  {part.state === 'approval-requested' && (
                    <>
                      <button onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: true })}>Approve</button>
                      <button onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'Rejected in the chat' })}>
                        Reject
                      </button>
                    </>
                  )}
                  {part.state === 'output-available' && <pre>{JSON.stringify(part.output)}</pre>}
                  {part.state === 'output-denied' && <em>rejected</em>}
                  {part.state === 'output-error' && <em>failed: {part.errorText}</em>}
                </div>
              );
            })}
          </li>
        ))}
      </ol>
      <p className="status">
        Status: {status}
        {status === 'error' && error ? ` (${error.message}; reconnecting)` : ''}
      </p>
      <form onSubmit={submit}>
        <input value={input} onChange={(event) => setInput(event.target.value)} placeholder="Ask the agent" disabled={status !== 'ready'} />
        <button type="submit" disabled={status !== 'ready'}>
          Send
        </button>
      </form>
    </main>
  );
}
