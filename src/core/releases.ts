/** Every generator release, oldest first. A module's tag is the release that first offered it. */
export const RELEASES = ['1.0', '1.1', '2.0', '2.1', '2.2', '3.0', '3.1', '3.2', '3.3', '3.4', '3.5', '3.6', '3.7', '4.0', '4.1'] as const;

export const CURRENT_RELEASE = RELEASES[RELEASES.length - 1]!;

const TAG_PATTERN = /^(\d+)\.(\d+)$/;

export function isTag(value: string): boolean {
  return TAG_PATTERN.test(value);
}

/** Compares two X.Y tags numerically: negative when a is older than b. */
export function compareTags(a: string, b: string): number {
  const [, aMajor, aMinor] = TAG_PATTERN.exec(a) ?? [];
  const [, bMajor, bMinor] = TAG_PATTERN.exec(b) ?? [];
  return Number(aMajor) - Number(bMajor) || Number(aMinor) - Number(bMinor);
}

export function isAvailableAt(tag: string, templateVersion: string): boolean {
  return compareTags(tag, templateVersion) <= 0;
}
