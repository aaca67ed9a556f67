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

/** The release X.Y of a version X.Y.Z (a pre-release suffix is ignored). */
export function releaseOfVersion(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/** Compares two X.Y.Z versions numerically (a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (version: string) => {
    const [core = '', pre] = version.split('-', 2);
    return { numbers: core.split('.').map(Number), pre };
  };
  const [left, right] = [parse(a), parse(b)];
  for (let index = 0; index < 3; index++) {
    const difference = (left.numbers[index] ?? 0) - (right.numbers[index] ?? 0);
    if (difference !== 0) return difference;
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre < right.pre ? -1 : 1;
}

/**
 * The release whose generator made an app, from its gatekit.json. Release 4.0 shipped with
 * package.json still at 3.7.0, so its apps record generator 3.7.0; the real 3.7 recorded no
 * `choices` (they came with 4.0), which tells the two apart.
 */
export function releaseOfApp(metadata: { generator: { version: string }; choices?: unknown }): string {
  const release = releaseOfVersion(metadata.generator.version);
  return release === '3.7' && metadata.choices !== undefined ? '4.0' : release;
}
