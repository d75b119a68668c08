/**
 * Durations as people write them in configs: `500ms`, `30s`, `15m`, `4h`, `3d`. Pure (safe in
 * workflows).
 */
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function isDuration(text: string): boolean {
  return DURATION_PATTERN.test(text.trim());
}

/** Milliseconds of a duration string. @throws on an invalid string (validate configs first). */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) throw new Error(`'${text}' is not a duration such as 30s, 15m, 4h or 3d`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}

/** A short human form: 90000 → "1m 30s". */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000);
  for (const [unit, seconds] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= seconds) {
      parts.push(`${Math.floor(rest / seconds)}${unit}`);
      rest %= seconds;
    }
  }
  return parts.slice(0, 2).join(' ');
}
