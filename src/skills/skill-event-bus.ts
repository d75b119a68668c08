import type { Logger } from 'pino';
import type { SkillInfo } from '../protocol/skill-types';

/** The sync manager's events, as in the seeds: `skill:added`, `skill:modified`, `skill:removed`. */
export interface SkillEvents {
  'skill:added': { skill: SkillInfo; version: number };
  'skill:modified': { oldSkill: SkillInfo | null; newSkill: SkillInfo; version: number };
  'skill:removed': { skill: SkillInfo | null; skillName: string; version: number };
}

type Handler<K extends keyof SkillEvents> = (payload: SkillEvents[K]) => void | Promise<void>;

/**
 * A small typed event bus. A subscriber that throws is logged and the others still run.
 */
export class SkillEventBus {
  private readonly handlers: { [K in keyof SkillEvents]?: Array<Handler<K>> } = {};

  constructor(private readonly logger?: Pick<Logger, 'warn'>) {}

  on<K extends keyof SkillEvents>(event: K, handler: Handler<K>): () => void {
    const list = (this.handlers[event] ??= []) as Array<Handler<K>>;
    list.push(handler);
    return () => list.splice(list.indexOf(handler), 1);
  }

  async emit<K extends keyof SkillEvents>(event: K, payload: SkillEvents[K]): Promise<void> {
    for (const handler of [...((this.handlers[event] ?? []) as Array<Handler<K>>)]) {
      try {
        await handler(payload);
      } catch (error) {
        this.logger?.warn({ event, error: String(error) }, 'a skill event subscriber failed');
      }
    }
  }
}

/** Out of the box: log every change. */
export function logSkillEvents(bus: SkillEventBus, logger: Pick<Logger, 'info'>): void {
  bus.on('skill:added', ({ skill, version }) => logger.info({ skill: skill.name, source: skill.source, version }, 'skill added'));
  bus.on('skill:modified', ({ newSkill, version }) => logger.info({ skill: newSkill.name, source: newSkill.source, version }, 'skill modified'));
  bus.on('skill:removed', ({ skillName, version }) => logger.info({ skill: skillName, version }, 'skill removed'));
}

/** Out of the box: count changes by kind. */
export class SkillMetrics {
  readonly counts = { added: 0, modified: 0, removed: 0 };

  constructor(bus: SkillEventBus) {
    bus.on('skill:added', () => void this.counts.added++);
    bus.on('skill:modified', () => void this.counts.modified++);
    bus.on('skill:removed', () => void this.counts.removed++);
  }
}
