import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './errors.js';
import { CURRENT_RELEASE } from './releases.js';
import { GENERATOR_VERSION } from './version.js';
import { PACKAGE_OVERRIDES, PACKAGE_VERSIONS, type PackageOverride } from './versions.js';

/**
 * Everything a release renders an app from that is data rather than code: its built-in modules
 * (templates/), its table of npm versions, and the generator version it wrote into gatekit.json and
 * the README. The current release's is this checkout's own; an earlier release's is frozen under
 * releases/<X.Y>/ (scripts/freeze-release.ts), so `upgrade` renders an app again exactly as its
 * release made it, with this core (docs/upgrade.md).
 */
export interface ReleaseProfile {
  /** X.Y */
  release: string;
  /** What the release's generator wrote as its version (4.0's package.json still said 3.7.0). */
  generatorVersion: string;
  /** The folder of the release's built-in modules. */
  templatesDir: string;
  packageVersions: Readonly<Record<string, string>>;
  packageOverrides: readonly PackageOverride[];
}

/** releases/<X.Y>/release.json, written by scripts/freeze-release.ts. */
export interface FrozenReleaseFile {
  release: string;
  /** The commit of this repository that shipped the release. */
  commit: string;
  generatorVersion: string;
  packageVersions: Record<string, string>;
  packageOverrides: PackageOverride[];
}

/** The earlier releases this generator can render (and so upgrade from), oldest first. */
export const FROZEN_RELEASES = ['4.0'] as const;

/** A folder shipped beside src/ (checkout) or dist/ (package): templates, releases. */
export function packageFolder(name: string): string {
  // src/core/release-profile.ts -> ../../<name> ; dist/cli.js -> ../<name>
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '..', '..', name), path.resolve(here, '..', name)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`Cannot find the ${name} folder near ${here}`);
}

let current: ReleaseProfile | undefined;

/** The release this generator makes. */
export function currentReleaseProfile(): ReleaseProfile {
  current ??= {
    release: CURRENT_RELEASE,
    generatorVersion: GENERATOR_VERSION,
    templatesDir: packageFolder('templates'),
    packageVersions: PACKAGE_VERSIONS,
    packageOverrides: PACKAGE_OVERRIDES,
  };
  return current;
}

const frozen = new Map<string, ReleaseProfile>();

/** The profile of `release`: the current one, or one frozen under releases/. */
export function releaseProfile(release: string): ReleaseProfile {
  if (release === CURRENT_RELEASE) return currentReleaseProfile();
  if (!(FROZEN_RELEASES as readonly string[]).includes(release)) {
    throw new UsageError(`This generator cannot render release ${release}: it renders ${[...FROZEN_RELEASES, CURRENT_RELEASE].join(', ')}.`);
  }
  let profile = frozen.get(release);
  if (!profile) {
    const dir = path.join(packageFolder('releases'), release);
    const file = JSON.parse(readFileSync(path.join(dir, 'release.json'), 'utf8')) as FrozenReleaseFile;
    profile = {
      release: file.release,
      generatorVersion: file.generatorVersion,
      templatesDir: path.join(dir, 'templates'),
      packageVersions: file.packageVersions,
      packageOverrides: file.packageOverrides,
    };
    frozen.set(release, profile);
  }
  return profile;
}
