import type { SkillBatch, SkillInfo, SkillSnapshot } from '../../protocol/skill-types';

export type BatchOutcome = 'applied' | 'stale' | 'gap' | 'unbound';

interface SourceSkills {
  version: number;
  hash: string;
  skills: SkillInfo[];
}

/**
 * The skills a run follows, per source. A batch applies only when it is newer than what the run
 * has and starts from the same skill set (its `previousHash`); otherwise it is stale (ignored) or
 * shows a gap (the run reloads the source). Pure: unit-tested without a server.
 */
export class RunSkills {
  private readonly sources = new Map<string, SourceSkills>();

  constructor(
    private readonly sourceOrder: readonly string[],
    private readonly selected: readonly string[] | null,
  ) {}

  /** A whole snapshot of a source (at start, or a reload after a gap). */
  load(snapshot: SkillSnapshot, version: number): void {
    this.sources.set(snapshot.source, { version, hash: snapshot.hash, skills: [...snapshot.skills] });
  }

  offer(batch: SkillBatch): BatchOutcome {
    if (!this.sourceOrder.includes(batch.source)) return 'unbound';
    const current = this.sources.get(batch.source) ?? { version: 0, hash: '', skills: [] };
    if (batch.version <= current.version) return 'stale';
    if (batch.previousHash !== current.hash) return 'gap';
    const skills = new Map(current.skills.map((skill) => [skill.name, skill]));
    for (const change of batch.changes) {
      if (change.kind === 'removed') skills.delete(change.skillName);
      else if (change.skill) skills.set(change.skillName, change.skill);
    }
    this.sources.set(batch.source, {
      version: batch.version,
      hash: batch.hash,
      skills: [...skills.values()].sort((a, b) => a.name.localeCompare(b.name)),
    });
    return 'applied';
  }

  /** Active skills: selected by name when the config lists names; on a name clash the source listed first wins. */
  active(): SkillInfo[] {
    return this.resolve().active;
  }

  /** Skills hidden by a same-named skill of a source listed earlier. */
  clashes(): Array<{ name: string; winner: string; hidden: string }> {
    return this.resolve().clashes;
  }

  private resolve(): { active: SkillInfo[]; clashes: Array<{ name: string; winner: string; hidden: string }> } {
    const byName = new Map<string, { skill: SkillInfo; source: string }>();
    const clashes: Array<{ name: string; winner: string; hidden: string }> = [];
    for (const source of this.sourceOrder) {
      for (const skill of this.sources.get(source)?.skills ?? []) {
        if (this.selected && !this.selected.includes(skill.name)) continue;
        const winner = byName.get(skill.name);
        if (winner) clashes.push({ name: skill.name, winner: winner.source, hidden: source });
        else byName.set(skill.name, { skill, source });
      }
    }
    return { active: [...byName.values()].map((entry) => entry.skill), clashes };
  }

  tools(): string[] {
    return [...new Set(this.active().flatMap((skill) => skill.tools))];
  }

  status(): Array<{ source: string; version: number; hash: string; names: string[] }> {
    return this.sourceOrder.map((source) => {
      const state = this.sources.get(source);
      return { source, version: state?.version ?? 0, hash: state?.hash ?? '', names: (state?.skills ?? []).map((skill) => skill.name) };
    });
  }
}
