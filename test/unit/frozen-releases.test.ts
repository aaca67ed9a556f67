import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Choices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { contentHash } from '../../src/core/generated-files.js';
import { createRegistry, loadReleaseModules } from '../../src/core/registry.js';
import { FROZEN_RELEASES, releaseProfile } from '../../src/core/release-profile.js';
import { ROOT } from '../helpers/run-cli.js';

/**
 * An earlier release is rendered again by this core from the release's frozen data (releases/<X.Y>/),
 * and must come out exactly as that release's own generator made it: that is the merge base of
 * `upgrade`. scripts/freeze-release.ts wrote what the release's own core renders for each case
 * (test/releases/<X.Y>.json); here the current core renders the same choices.
 */
interface RecordedRender {
  name: string;
  projectName: string;
  choices: Choices;
  files: Record<string, string>;
}

interface Recorded {
  release: string;
  commit: string;
  clock: string;
  cases: RecordedRender[];
}

/** Lines of `content` that another render wrote differently (fresh secrets), as NAME=<random>. */
function withRandomMasked(content: string, other: string): string {
  const otherLines = other.split('\n');
  return content
    .split('\n')
    .map((line, index) => (line === otherLines[index] ? line : line.replace(/=.*$/, '=<random>')))
    .join('\n');
}

/** git's object id of a file's content (what `git ls-tree` lists). */
function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

for (const release of FROZEN_RELEASES) {
  const recorded = JSON.parse(readFileSync(path.join(ROOT, 'test/releases', `${release}.json`), 'utf8')) as Recorded;
  const profile = releaseProfile(release);
  const registry = createRegistry(loadReleaseModules(profile), [], profile);

  describe(`release ${release}, frozen`, () => {
    it(`releases/${release}/templates is the templates folder of the commit that shipped it (${recorded.commit.slice(0, 7)})`, () => {
      let listing: string;
      try {
        listing = execFileSync('git', ['ls-tree', '-r', recorded.commit, 'templates/'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      } catch (error) {
        throw new Error(`This test reads the release's commit ${recorded.commit} from git; a shallow clone lacks it (git fetch --unshallow). ${(error as Error).message}`);
      }
      const expected = Object.fromEntries(
        listing
          .trim()
          .split('\n')
          .map((line) => {
            const [meta, file] = line.split('\t') as [string, string];
            return [file.slice('templates/'.length), meta.split(' ')[2]!];
          }),
      );
      const actual = Object.fromEntries(filesUnder(profile.templatesDir).map((file) => [file, blobId(readFileSync(path.join(profile.templatesDir, file)))]));
      expect(actual).toEqual(expected);
    });

    it('the release file names the generator version that release wrote', () => {
      const file = JSON.parse(readFileSync(path.join(ROOT, 'releases', release, 'release.json'), 'utf8'));
      expect(file).toMatchObject({ release, commit: recorded.commit, generatorVersion: profile.generatorVersion });
    });

    for (const one of recorded.cases) {
      it(`this core renders ${one.name} byte for byte as release ${release} did (every file, and the hashes in gatekit.json)`, () => {
        const render = () => generateProject({ projectName: one.projectName, choices: one.choices, registry, now: new Date(recorded.clock) }).tree;
        const [first, second] = [render(), render()];
        const files = Object.fromEntries(
          first.entries().map(([file, content]) => [file, hashOf(file === '.env' ? withRandomMasked(content, second.get(file)!) : content)]),
        );
        expect(files).toEqual(one.files);
        const metadata = JSON.parse(first.get('gatekit.json')!);
        expect(metadata.generator.version).toBe(profile.generatorVersion);
        for (const [file, hash] of Object.entries(metadata.files as Record<string, string>)) expect(hash, file).toBe(contentHash(first.get(file)!));
      });
    }
  });
}

function hashOf(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 16);
}
