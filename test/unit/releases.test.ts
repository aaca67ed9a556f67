import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CURRENT_RELEASE, RELEASES } from '../../src/core/releases.js';
import { GENERATOR_VERSION } from '../../src/core/version.js';

describe('releases', () => {
  // Before 4.1: package.json said 3.7.0 while the templates were at release 4.0, so an app's
  // gatekit.json named a generator version that had never made it.
  it("the package's version names the current release (X.Y.Z of release X.Y)", () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(GENERATOR_VERSION).toBe(version);
    expect(version.split('.').slice(0, 2).join('.')).toBe(CURRENT_RELEASE);
  });

  it('lists every release once, oldest first', () => {
    expect(new Set(RELEASES).size).toBe(RELEASES.length);
    const numeric = RELEASES.map((release) => release.split('.').map(Number) as [number, number]);
    for (let i = 1; i < numeric.length; i++) {
      const [major, minor] = numeric[i]!;
      const [previousMajor, previousMinor] = numeric[i - 1]!;
      expect(major > previousMajor || (major === previousMajor && minor > previousMinor), RELEASES[i]).toBe(true);
    }
  });
});
