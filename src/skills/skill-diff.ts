import type { SkillChange, SkillInfo } from '../protocol/skill-types';

/** Changes from one skill set to the next: added, modified (other content or tools), removed. */
export function diffSkills(before: SkillInfo[], after: SkillInfo[]): SkillChange[] {
  const old = new Map(before.map((skill) => [skill.name, skill]));
  const changes: SkillChange[] = [];
  for (const skill of after) {
    const previous = old.get(skill.name);
    if (!previous) changes.push({ kind: 'added', skillName: skill.name, skill, source: skill.source });
    else if (previous.contentHash !== skill.contentHash || previous.tools.join(',') !== skill.tools.join(',') || previous.file !== skill.file) {
      changes.push({ kind: 'modified', skillName: skill.name, skill, source: skill.source });
    }
    old.delete(skill.name);
  }
  for (const skill of old.values()) changes.push({ kind: 'removed', skillName: skill.name, skill: null, source: skill.source });
  return changes;
}
