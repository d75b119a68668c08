// Who may use the console and decide which tools: its access settings, read from a file and checked.
import { readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { AgentConfigError } from '../protocol/errors';

/**
 * Who may decide which tools: a gated call of a tool matched by `tools` may be decided only by an
 * identity matched by `identities` (globs: `refund_*`, `*@finance.example.com`). A tool no rule
 * matches may be decided by anyone signed in.
 */
export interface ApproverRule {
  tools: string[];
  identities: string[];
}

/** How people sign in to the console, and what they may decide (docs/console.md). */
export interface ConsoleAccess {
  /**
   * Access tokens and the identity each signs in as. A browser signs in once on the login page
   * (an HttpOnly, SameSite=Strict cookie follows); scripts send `Authorization: Bearer <token>`.
   */
  tokens?: Array<{ identity: string; token: string }>;
  /**
   * A header set by a trusted reverse proxy that has authenticated the user (for example
   * `X-Forwarded-User` from oauth2-proxy). Only safe when nothing but the proxy can reach the console.
   */
  trustedHeader?: string;
  /** Who may decide which tools (default: everyone signed in decides every tool). */
  approvers?: ApproverRule[];
}

const accessFileSchema = z
  .object({
    tokens: z
      .array(z.object({ identity: z.string().trim().min(1).max(200), token: z.string().min(16, 'must be at least 16 characters') }).strict())
      .optional(),
    trusted_header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
      .optional(),
    approvers: z.array(z.object({ tools: z.array(z.string().min(1)).min(1), identities: z.array(z.string().min(1)).min(1) }).strict()).optional(),
  })
  .strict();

/**
 * Reads a console access file (YAML or JSON: `tokens`, `trusted_header`, `approvers`).
 * @throws AgentConfigError naming the file and each invalid field.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { readConsoleAccess, startConsole } from 'durable-agents/console';
 *
 * await startConsole({ agents: await AgentClient.connect(), host: '0.0.0.0', access: readConsoleAccess('console-access.yaml') });
 */
export function readConsoleAccess(file: string): ConsoleAccess {
  const raw = readAccessFile(file, 'console');
  const parsed = accessFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new AgentConfigError(`Invalid console access file:\n${problems.join('\n')}`, problems);
  }
  const { tokens, trusted_header: trustedHeader, approvers } = parsed.data;
  return { ...(tokens ? { tokens } : {}), ...(trustedHeader ? { trustedHeader } : {}), ...(approvers ? { approvers } : {}) };
}

/**
 * The content of an access file (YAML, or JSON as YAML reads it), for the console's or the gateway's.
 * @throws AgentConfigError naming the file when it cannot be read or parsed.
 */
export function readAccessFile(file: string, of: 'console' | 'gateway'): unknown {
  try {
    return parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    const problem = `${file}: ${error instanceof Error ? error.message : String(error)}`;
    throw new AgentConfigError(`Cannot read the ${of} access file ${problem}`, [problem]);
  }
}

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Refuses settings that would open the console to the network without sign-in.
 * @throws AgentConfigError when `host` is not loopback and `access` has neither tokens nor a trusted header.
 */
export function assertAccessFitsHost(host: string, access: ConsoleAccess): void {
  if (isLoopbackHost(host) || (access.tokens?.length ?? 0) > 0 || access.trustedHeader) return;
  const problem = `host: ${host} is reachable from other machines; give tokens or a trusted_header (--access <file>), or bind to 127.0.0.1`;
  throw new AgentConfigError(`The console refuses to start without sign-in: ${problem}`, [problem]);
}

/** Whether `identity` may decide a call of `toolName` under `rules` (see `ApproverRule`). */
export function mayDecide(rules: readonly ApproverRule[] | undefined, identity: string, toolName: string): boolean {
  const governing = (rules ?? []).filter((rule) => picomatch.isMatch(toolName, rule.tools));
  return governing.length === 0 || governing.some((rule) => picomatch.isMatch(identity, rule.identities));
}

/**
 * Who may decide a call of `toolName` under `rules`: the identity globs of every rule whose `tools`
 * match it, or null when no rule does (then anyone signed in may).
 */
export function decidersOf(rules: readonly ApproverRule[] | undefined, toolName: string): string[] | null {
  const governing = (rules ?? []).filter((rule) => picomatch.isMatch(toolName, rule.tools));
  return governing.length === 0 ? null : [...new Set(governing.flatMap((rule) => rule.identities))];
}
