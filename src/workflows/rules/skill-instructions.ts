import type { SkillInfo } from '../../protocol/skill-types';

/**
 * Instructions builders, by the name a config chooses (`instructions_builder`). Pure, so the
 * workflow rebuilds the system prompt deterministically when skills change.
 */
export function buildSkillInstructions(builder: 'skill-list' | 'none', skills: SkillInfo[]): string {
  if (builder === 'none' || skills.length === 0) return '';
  const lines = ['You have these skills:'];
  for (const skill of skills) {
    lines.push(`- ${skill.name}: ${skill.description}`);
    const firstUsageLine = skill.usage.split('\n').find((line) => line.trim());
    if (firstUsageLine) lines.push(`  ${firstUsageLine.trim()}`);
    if (skill.tools.length > 0) lines.push(`  Tools: ${skill.tools.join(', ')}`);
  }
  return lines.join('\n');
}
