const UNITS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** "60s", "15m", "12h", "7d" -> seconds; undefined for anything else. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
  return seconds > 0 ? seconds : undefined;
}
