import { log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { validateSkillBatch } from '../../protocol/message-validation';
import { MessageDescription, skillsChangedSignal } from '../../protocol/run-messages';
import { WireName } from '../../protocol/wire-names';
import { buildSkillInstructions } from '../rules/skill-instructions';
import type { SkillBatch, SkillFileError } from '../../protocol/skill-types';
import { buildSystemPrompt } from '../rules/run-prompts';
import { reportIgnoredSignal } from './message-refusal';
import type { LoopState } from './loop-state';

/**
 * How a run follows its skills: whole sources loaded through an activity (at the start, and
 * after a batch showed a gap), change batches applied from the skills signal. Every change
 * rebuilds the executor's system prompt; the tools follow through `availableTools`. The rules
 * of which batch applies are `RunSkills`' (pure).
 */

/** Registers the skills signal. Set after the run is announced, so a batch that came first is logged after `run-started`. */
export function followSkillChanges(state: LoopState): void {
  setHandler(
    skillsChangedSignal,
    (payload) => {
      const checked = validateSkillBatch(payload);
      if (checked.ok) return applySkillBatch(state, checked.value);
      reportIgnoredSignal(state.events, WireName.skillsChangedSignal, checked.reason);
    },
    { description: MessageDescription.skillsChanged },
  );
}

function applySkillBatch(state: LoopState, batch: SkillBatch): void {
  const outcome = state.skills.offer(batch);
  reportSkillErrors(state, batch.source, batch.errors ?? []);
  if (outcome === 'applied') {
    rebuildSkillInstructions(state);
    const named = (kind: 'added' | 'modified' | 'removed') =>
      batch.changes.filter((change) => change.kind === kind).map((change) => change.skillName);
    reportSkillChanges(state, batch.source, batch.version, { added: named('added'), modified: named('modified'), removed: named('removed') }, false);
  } else if (outcome === 'gap') {
    // A missed batch: reload the whole source before the next model call.
    state.skillReloads.set(batch.source, Math.max(batch.version, state.skillReloads.get(batch.source) ?? 0));
  } else {
    log.info('Ignored a skills batch', { source: batch.source, version: batch.version, outcome });
  }
}

/** Reads whole skill sources through an activity (`sources`: source → the version to record). */
export async function loadSkillSources(state: LoopState, sources: Map<string, number>): Promise<void> {
  const { loadSkillSources: load } = proxyActivities<AgentActivities>({
    activityId: `step-${state.step}.load-skills`,
    summary: `load skills from ${[...sources.keys()].join(', ')}`,
    startToCloseTimeout: '2m',
    retry: { maximumAttempts: 3 },
  });
  const snapshots = await load([...sources.keys()]);
  for (const snapshot of snapshots) {
    const before = state.skills.status().find((entry) => entry.source === snapshot.source)?.names ?? [];
    state.skills.load(snapshot, sources.get(snapshot.source) ?? 0);
    reportSkillErrors(state, snapshot.source, snapshot.errors, true);
    const after = snapshot.skills.map((skill) => skill.name);
    const changes = { added: after.filter((name) => !before.includes(name)), modified: [], removed: before.filter((name) => !after.includes(name)) };
    reportSkillChanges(state, snapshot.source, sources.get(snapshot.source) ?? 0, changes, true);
  }
  rebuildSkillInstructions(state);
}

/** Reloads the sources whose batches showed a gap since the last model call, if any. */
export async function reloadSkillsIfNeeded(state: LoopState): Promise<void> {
  if (state.skillReloads.size === 0) return;
  const sources = new Map(state.skillReloads);
  state.skillReloads.clear();
  await loadSkillSources(state, sources);
}

/** The executor's system prompt now: the run's instructions, the output contract, the active skills. */
export function systemPromptOf(state: LoopState): string {
  const { config, skills } = state;
  const skillText = buildSkillInstructions(config.instructions_builder, skills.active());
  return [buildSystemPrompt(config, state.instructions), skillText].filter(Boolean).join('\n\n');
}

/** After a skill change: the system prompt is rebuilt from the active skills; each new name clash is reported once. */
function rebuildSkillInstructions(state: LoopState): void {
  const { skills } = state;
  state.threads.setSystem('executor', systemPromptOf(state));
  for (const clash of skills.clashes()) {
    const key = `${clash.name}\n${clash.hidden}`;
    if (state.reportedClashes.has(key)) continue;
    state.reportedClashes.add(key);
    log.warn('Two skill sources have a skill of the same name; the first listed wins', clash);
    state.events.push({ type: 'skill-shadowed', ...clash });
  }
}

/**
 * Reports each malformed skill file once while it stays malformed: a batch and the reload after
 * it (or the watcher's next batch, which lists the source's errors again) carry the same error.
 * A whole snapshot (`replace`) is the source's full list: an error fixed and made again is new.
 */
function reportSkillErrors(state: LoopState, source: string, errors: readonly SkillFileError[], replace = false): void {
  const reported = state.reportedSkillErrors.get(source) ?? new Set<string>();
  const current = new Set<string>();
  for (const error of errors) {
    const key = `${error.file}\n${error.message}`;
    current.add(key);
    if (reported.has(key)) continue;
    reported.add(key);
    state.events.push({ type: 'skill-error', source, file: error.file, message: error.message });
  }
  state.reportedSkillErrors.set(source, replace ? current : reported);
}

function reportSkillChanges(
  state: LoopState,
  source: string,
  version: number,
  changes: { added: string[]; modified: string[]; removed: string[] },
  reloaded: boolean,
): void {
  state.events.push({ type: 'skills-changed', step: state.step, source, version, ...changes, reloaded });
}
