// The fork command's edit flags (`--edit-tool-result`, `--edit-tool-error`, `--edit-message`) read into the client's edits.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ForkEditRequest } from '../client/fork-edits';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';

/** The flags as commander collects them (each may be given more than once). */
export interface ForkEditFlags {
  editToolResult?: string[];
  editToolError?: string[];
  editMessage?: string[];
}

/**
 * `--edit-tool-result <call id>=<text>` or `<step>:<tool>[#n]=<text>`, `--edit-tool-error` (the
 * same, as an error result), `--edit-message <step>:<user|assistant>=<text>`; a text `@file` is
 * the file's content (relative to `folder`), `@@…` a text starting with `@`.
 * @throws AgentRuntimeError `ForkEditInvalid` naming the flag and what it expected.
 * @example
 * forkEditsFromFlags({ editToolResult: ['2:lookup_order={"status":"lost"}'], editMessage: ['1:user=@question.txt'] }, process.cwd());
 */
export function forkEditsFromFlags(flags: ForkEditFlags, folder: string): ForkEditRequest[] {
  const toolResult =
    (flag: string, isError: boolean) =>
    (value: string): ForkEditRequest => {
      const { target, content } = split(flag, value, '<call id>=<text> or <step>:<tool>[#n]=<text>', folder);
      const byStep = /^(\d+):([^#]+)(?:#(\d+))?$/.exec(target);
      if (!byStep) return { toolResult: { callId: target }, content, isError };
      const [, step, tool, index] = byStep;
      return { toolResult: { step: Number(step), tool: tool!, ...(index !== undefined ? { index: Number(index) } : {}) }, content, isError };
    };
  const message = (value: string): ForkEditRequest => {
    const expected = '<step>:<user|assistant>=<text>';
    const { target, content } = split('--edit-message', value, expected, folder);
    const parsed = /^(\d+):(user|assistant)$/.exec(target);
    if (!parsed) throw invalid(`--edit-message: expected ${expected} (step as \`history\` numbers them), got '${target}'`);
    return { message: { step: Number(parsed[1]), role: parsed[2] as 'user' | 'assistant' }, content };
  };
  return [
    ...(flags.editToolResult ?? []).map(toolResult('--edit-tool-result', false)),
    ...(flags.editToolError ?? []).map(toolResult('--edit-tool-error', true)),
    ...(flags.editMessage ?? []).map(message),
  ];
}

/** Commander's collector for a flag given more than once. */
export function collectFlag(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function split(flag: string, value: string, expected: string, folder: string): { target: string; content: string } {
  const at = value.indexOf('=');
  const target = at === -1 ? '' : value.slice(0, at).trim();
  if (!target) throw invalid(`${flag}: expected ${expected}, got '${value}'`);
  return { target, content: textOrFile(flag, value.slice(at + 1), folder) };
}

function textOrFile(flag: string, text: string, folder: string): string {
  if (text.startsWith('@@')) return text.slice(1);
  if (!text.startsWith('@')) return text;
  const file = path.resolve(folder, text.slice(1));
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`${flag}: cannot read the file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function invalid(message: string): AgentRuntimeError {
  return new AgentRuntimeError(ErrorCode.forkEditInvalid, message);
}
