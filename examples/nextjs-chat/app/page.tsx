// The chat page: a server component that picks the thread and the user's credential, then renders the client chat.
import { Chat } from './chat';

/** `/?chat=<id>` opens that thread (a reload resumes its running turn); without it, the `demo` thread. */
export default async function Page({ searchParams }: { searchParams: Promise<{ chat?: string }> }) {
  const { chat } = await searchParams;
  // In your app: the signed-in user's JWT (docs/gateway.md, "JWT bearer tokens"), so approvals are
  // decided as that user. This example reads one user's key from the environment.
  const token = process.env.CHAT_USER_TOKEN ?? '';
  return <Chat chatId={chat ?? 'demo'} agent={process.env.CHAT_AGENT ?? 'support'} token={token} />;
}
