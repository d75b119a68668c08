/**
 * The consumer's own activity: it runs on the same worker as the agent runtime's activities,
 * which shows that the plugin adds to the user's activities instead of replacing them.
 */
export async function openTicket(subject: string): Promise<string> {
  const slug = subject
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `ticket:${slug}`;
}
