import type { ConversationRequest } from './run-messages';
import type { ApprovalDecision } from './run-types';
import type { SkillBatch } from './skill-types';

/**
 * Validation of what a client sends a run (signals and updates): every field's type and length,
 * before anything can change. Signals and updates are untyped on the wire (the Temporal CLI, the
 * Web UI and other SDKs send any JSON), so the workflow checks them itself. Pure and free of Node
 * imports: safe in the workflow sandbox, unit-tested without a server.
 */

/** Bounds of the fields a client sends, in characters. */
export const MessageLimits = {
  approvalId: 200,
  decidedBy: 200,
  /** The door a decision came through (`console`, `mcp`, ...). */
  via: 40,
  reason: 4_000,
  /** A decision proof token (docs/hitl.md, "Verified decisions"): a few hundred characters in practice. */
  proof: 4_000,
  injectedText: 100_000,
  skillSource: 2_000,
  skillHash: 200,
  skillName: 200,
} as const;

/**
 * The stable `type` of a refused update (the `ApplicationFailure` its validator throws): a
 * decision that cannot apply (`ApprovalRefused`: unknown, decided or expired id; `DecisionUnverified`:
 * no valid proof where the agent requires one), a payload of the
 * wrong shape (`InvalidMessage`), an injected message without text (`EmptyMessage`); for threads,
 * a message refused while a turn runs (`ThreadBusy`), sent with another config than the thread's
 * (`ThreadConfigMismatch`) or after it closed (`ThreadClosed`).
 */
export type RefusalType =
  'ApprovalRefused' | 'DecisionUnverified' | 'InvalidMessage' | 'EmptyMessage' | 'ThreadBusy' | 'ThreadConfigMismatch' | 'ThreadClosed';

/** A valid payload, or why it is not (with the refusal's stable type). */
export type Validated<T> = { ok: true; value: T } | { ok: false; type: RefusalType; reason: string };

export const refused = (reason: string, type: RefusalType = 'InvalidMessage'): { ok: false; type: RefusalType; reason: string } => ({
  ok: false,
  type,
  reason,
});

/** A value as a reader can see it in a reason: `42`, `{"x":1}`, `a string of 5,000 characters`. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `a string of ${grouped(value.length)} characters` : JSON.stringify(value);
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${Array.isArray(value) ? 'an array' : typeof value} (${json.length} characters of JSON)` : json;
}

/** 100000 → "100,000" (no Intl: the same text on every worker). */
export function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Null when `payload` has only `allowed` fields; otherwise the reason naming the first other one. */
export function unknownField(payload: Record<string, unknown>, allowed: readonly string[], where = ''): string | null {
  const extra = Object.keys(payload).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `${where}${extra}: unknown field (expected ${allowed.join(', ')})`;
}

/** Null when `value` is a string of at most `limit` characters (non-empty when `nonEmpty`). */
export function stringProblem(field: string, value: unknown, limit: number, nonEmpty = false): string | null {
  if (typeof value !== 'string') return `${field}: must be a string, not ${shown(value)}`;
  if (nonEmpty && value.trim() === '') return `${field}: must not be empty`;
  if (value.length > limit) return `${field}: must be at most ${grouped(limit)} characters, not ${grouped(value.length)}`;
  return null;
}

/** Null when `value` is absent (undefined or null) or a string within `limit`. */
export function optionalStringProblem(field: string, value: unknown, limit: number): string | null {
  return value === undefined || value === null ? null : stringProblem(field, value, limit);
}

/**
 * The payload of the `approval` signal and the `decideApproval` update: an object with
 * `approvalId` (a string of at most 200 characters), `decision` (`"approve"` or `"reject"`), and
 * optionally `reason` (at most 4,000 characters), `decidedBy` (at most 200), `via` (the door, at
 * most 40) and `proof` (a decision proof token, at most 4,000; checked by the workers, not here); `null` counts as
 * absent; no other field. The value returned has absent fields left out.
 * @example
 * validateApprovalDecision({ approvalId: 'step-1.call-1', decision: 'reject', decidedBy: 42 });
 * // { ok: false, type: 'InvalidMessage', reason: 'decidedBy: must be a string, not 42' }
 */
export function validateApprovalDecision(payload: unknown): Validated<ApprovalDecision> {
  if (!isRecord(payload)) return refused(`a decision must be an object with approvalId and decision, not ${shown(payload)}`);
  const problem =
    stringProblem('approvalId', payload.approvalId, MessageLimits.approvalId, true) ??
    (payload.decision === 'approve' || payload.decision === 'reject'
      ? null
      : `decision: must be "approve" or "reject", not ${shown(payload.decision)}`) ??
    optionalStringProblem('reason', payload.reason, MessageLimits.reason) ??
    optionalStringProblem('decidedBy', payload.decidedBy, MessageLimits.decidedBy) ??
    optionalStringProblem('proof', payload.proof, MessageLimits.proof) ??
    optionalStringProblem('via', payload.via, MessageLimits.via) ??
    unknownField(payload, ['approvalId', 'decision', 'reason', 'decidedBy', 'proof', 'via']);
  if (problem !== null) return refused(problem);
  const { approvalId, decision, reason, decidedBy, proof, via } = payload as unknown as ApprovalDecision;
  return {
    ok: true,
    value: {
      approvalId,
      decision,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof decidedBy === 'string' ? { decidedBy } : {}),
      ...(typeof proof === 'string' ? { proof } : {}),
      ...(typeof via === 'string' ? { via } : {}),
    },
  };
}

/**
 * The payload of the `injectMessage` signal and the `injectMessageChecked` update: `{ text }`, a
 * string that is not blank (`EmptyMessage` otherwise) and at most 100,000 characters; no other field.
 */
export function validateInjectedMessage(payload: unknown): Validated<{ text: string }> {
  if (!isRecord(payload)) return refused(`an injected message must be an object { text }, not ${shown(payload)}`);
  if (typeof payload.text === 'string' && payload.text.trim() === '') return refused('text: an injected message must not be empty', 'EmptyMessage');
  const problem = stringProblem('text', payload.text, MessageLimits.injectedText) ?? unknownField(payload, ['text']);
  return problem === null ? { ok: true, value: { text: payload.text as string } } : refused(problem);
}

/** Null when `value` is absent (undefined or null) or a whole number of at least 0. */
function optionalCountProblem(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? null
    : `${field}: must be a whole number of at least 0, not ${shown(value)}`;
}

/**
 * The argument of the `conversation` query, every field optional: `thread` (`"executor"` or
 * `"planner"`), `epoch`, `from` and `count` (whole numbers of at least 0); no other field. No
 * argument at all (the Web UI's Queries tab, `temporal workflow query --type conversation`) asks
 * for the default view; the workflow fills in what is absent (the current epoch, the messages it
 * holds). The value returned has absent fields left out.
 * @example
 * validateConversationRequest({ epoch: '0' });
 * // { ok: false, type: 'InvalidMessage', reason: 'epoch: must be a whole number of at least 0, not "0"' }
 */
export function validateConversationRequest(payload: unknown): Validated<Partial<ConversationRequest>> {
  if (payload === undefined || payload === null) return { ok: true, value: {} };
  if (!isRecord(payload)) return refused(`a conversation request must be an object { thread?, epoch?, from?, count? }, not ${shown(payload)}`);
  const { thread, epoch, from, count } = payload;
  const problem =
    (thread === undefined || thread === null || thread === 'executor' || thread === 'planner'
      ? null
      : `thread: must be "executor" or "planner", not ${shown(thread)}`) ??
    optionalCountProblem('epoch', epoch) ??
    optionalCountProblem('from', from) ??
    optionalCountProblem('count', count) ??
    unknownField(payload, ['thread', 'epoch', 'from', 'count']);
  if (problem !== null) return refused(problem);
  const present = (value: unknown) => value !== undefined && value !== null;
  return {
    ok: true,
    value: {
      ...(present(thread) ? { thread: thread as ConversationRequest['thread'] } : {}),
      ...(present(epoch) ? { epoch: epoch as number } : {}),
      ...(present(from) ? { from: from as number } : {}),
      ...(present(count) ? { count: count as number } : {}),
    },
  };
}

const SKILL_CHANGE_KINDS = ['added', 'modified', 'removed'];

function skillInfoProblem(where: string, skill: unknown): string | null {
  if (!isRecord(skill)) return `${where}: must be an object (a skill), not ${shown(skill)}`;
  for (const field of ['name', 'description', 'usage', 'source', 'file', 'contentHash']) {
    if (typeof skill[field] !== 'string') return `${where}.${field}: must be a string, not ${shown(skill[field])}`;
  }
  for (const field of ['allowedTools', 'tools']) {
    const list = skill[field];
    if (!Array.isArray(list) || list.some((name) => typeof name !== 'string'))
      return `${where}.${field}: must be an array of strings, not ${shown(list)}`;
  }
  return null;
}

function skillChangeProblem(where: string, change: unknown): string | null {
  if (!isRecord(change)) return `${where}: must be an object { kind, skillName, skill, source }, not ${shown(change)}`;
  if (!SKILL_CHANGE_KINDS.includes(change.kind as string))
    return `${where}.kind: must be "added", "modified" or "removed", not ${shown(change.kind)}`;
  const nameProblem = stringProblem(`${where}.skillName`, change.skillName, MessageLimits.skillName, true);
  if (nameProblem) return nameProblem;
  if (change.kind === 'removed') return change.skill === null || change.skill === undefined ? null : skillInfoProblem(`${where}.skill`, change.skill);
  return skillInfoProblem(`${where}.skill`, change.skill);
}

/**
 * The payload of the `skillsChanged` signal: `source` (a non-empty string), `version` (a positive
 * integer), `previousHash` and `hash` (strings), `changes` (an array of `{ kind, skillName, skill }`,
 * `skill` a skill object except for `removed`) and `errors` (an array of `{ file, message }`,
 * optional).
 */
export function validateSkillBatch(payload: unknown): Validated<SkillBatch> {
  if (!isRecord(payload)) return refused(`a skills batch must be an object, not ${shown(payload)}`);
  const { version, changes, errors } = payload;
  let problem =
    stringProblem('source', payload.source, MessageLimits.skillSource, true) ??
    (typeof version === 'number' && Number.isInteger(version) && version > 0 ? null : `version: must be a positive integer, not ${shown(version)}`) ??
    stringProblem('previousHash', payload.previousHash, MessageLimits.skillHash) ??
    stringProblem('hash', payload.hash, MessageLimits.skillHash) ??
    (Array.isArray(changes) ? null : `changes: must be an array, not ${shown(changes)}`) ??
    (errors === undefined || errors === null || Array.isArray(errors) ? null : `errors: must be an array, not ${shown(errors)}`);
  if (problem === null) {
    problem = (changes as unknown[]).reduce<string | null>((found, change, index) => found ?? skillChangeProblem(`changes[${index}]`, change), null);
  }
  if (problem === null) {
    problem = ((errors as unknown[] | undefined | null) ?? []).reduce<string | null>((found, error, index) => {
      if (found) return found;
      if (!isRecord(error) || typeof error.file !== 'string' || typeof error.message !== 'string')
        return `errors[${index}]: must be an object { file, message } of strings, not ${shown(error)}`;
      return null;
    }, null);
  }
  if (problem !== null) return refused(problem);
  return { ok: true, value: { ...(payload as unknown as SkillBatch), errors: (errors as SkillBatch['errors'] | undefined | null) ?? [] } };
}
