import type { Logger } from 'pino';
import type { SkillInfo } from '../protocol/skill-types';

/**
 * The sync manager's events and their payloads, as in the seeds: `skill:added`, `skill:modified`,
 * `skill:removed` (with the version of the source's batch), and `skill:instructions` when the
 * manager has an `instructionsBuilder`.
 */
export interface SkillEvents {
  'skill:added': { skill: SkillInfo; version: number };
  'skill:modified': { oldSkill: SkillInfo | null; newSkill: SkillInfo; version: number };
  'skill:removed': { skill: SkillInfo | null; skillName: string; version: number };
  'skill:instructions': { instructions: string; skills: SkillInfo[] };
}

/** A subscriber of one event of `SkillEvents`; the bus awaits it before the next. */
export type SkillEventHandler<K extends keyof SkillEvents> = (payload: SkillEvents[K]) => void | Promise<void>;
type Handler<K extends keyof SkillEvents> = SkillEventHandler<K>;

/**
 * A small typed event bus: subscribers run in the order they subscribed, each awaited. One that
 * throws is logged and the others still run.
 * @example
 * import { SkillEventBus, SkillSyncManager } from 'durable-agents/skills';
 *
 * const bus = new SkillEventBus();
 * const stop = bus.on('skill:removed', async ({ skillName }) => await dashboard.notify(`skill ${skillName} removed`));
 * const manager = new SkillSyncManager({ bus });
 * // later: stop() unsubscribes
 */
export class SkillEventBus {
  private readonly handlers: { [K in keyof SkillEvents]?: Array<Handler<K>> } = {};

  constructor(private readonly logger?: Pick<Logger, 'warn'>) {}

  /** Subscribes `handler` to `event`; returns a function that unsubscribes it. */
  on<K extends keyof SkillEvents>(event: K, handler: Handler<K>): () => void {
    const list = (this.handlers[event] ??= []) as Array<Handler<K>>;
    list.push(handler);
    return () => {
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Calls every subscriber of `event` in turn; resolves when all have run (failures logged). */
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

/**
 * Out of the box: logs every change (the skill, its source and the batch version) at info level.
 * @example
 * logSkillEvents(manager.bus, pino());
 */
export function logSkillEvents(bus: SkillEventBus, logger: Pick<Logger, 'info'>): void {
  bus.on('skill:added', ({ skill, version }) => logger.info({ skill: skill.name, source: skill.source, version }, 'skill added'));
  bus.on('skill:modified', ({ newSkill, version }) => logger.info({ skill: newSkill.name, source: newSkill.source, version }, 'skill modified'));
  bus.on('skill:removed', ({ skillName, version }) => logger.info({ skill: skillName, version }, 'skill removed'));
}

/**
 * Out of the box: counts changes by kind (`counts.added`, `counts.modified`, `counts.removed`).
 * @example
 * const metrics = new SkillMetrics(manager.bus);
 * process.on('SIGTERM', () => console.log(metrics.counts));
 */
export class SkillMetrics {
  readonly counts = { added: 0, modified: 0, removed: 0 };

  constructor(bus: SkillEventBus) {
    bus.on('skill:added', () => void this.counts.added++);
    bus.on('skill:modified', () => void this.counts.modified++);
    bus.on('skill:removed', () => void this.counts.removed++);
  }
}
