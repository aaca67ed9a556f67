import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WORK_DIR } from './fixtures.js';
import { ROOT } from './run-cli.js';

const PREPARED = '.gatekit-prepared';

/**
 * The generator of an earlier release, built from the commit that shipped it
 * (releases/<X.Y>/release.json): `git archive` of that commit, this checkout's node_modules (the
 * generator's packages and their ranges did not change since 4.0; checked here), and its own tsup build. Built
 * once per run under test/tmp/release-<X.Y>, shared by the test files that ask (a lock folder; the
 * global setup clears the marker, so each run builds it again). Returns the path of its bin.
 */
export async function releaseCli(release: string): Promise<string> {
  const { commit } = JSON.parse(readFileSync(path.join(ROOT, 'releases', release, 'release.json'), 'utf8')) as { commit: string };
  const dir = path.join(WORK_DIR, `release-${release}`);
  const bin = path.join(dir, 'bin/create-gatekit.js');
  const marker = path.join(WORK_DIR, `release-${release}${PREPARED}`);
  const lock = `${dir}.lock`;
  mkdirSync(WORK_DIR, { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    if (existsSync(marker)) return bin;
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`timed out waiting for release ${release}'s generator to be built`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const archive = spawnSync('sh', ['-c', `git archive ${commit} src templates bin package.json tsup.config.ts | tar -x -C "${dir}"`], { cwd: ROOT, encoding: 'utf8' });
      if (archive.status !== 0) throw new Error(`git archive ${commit} failed (a shallow clone lacks the commit: git fetch --unshallow): ${archive.stderr}`);
      // The same packages and ranges (a package may have moved between dependencies and devDependencies).
      const packages = (file: string) => {
        const { dependencies, devDependencies } = JSON.parse(readFileSync(file, 'utf8'));
        const all: Record<string, string> = { ...dependencies, ...devDependencies };
        return JSON.stringify(Object.keys(all).sort().map((name) => [name, all[name]]));
      };
      if (packages(path.join(dir, 'package.json')) !== packages(path.join(ROOT, 'package.json'))) {
        throw new Error(`release ${release}'s package.json declares other dependencies than this checkout's: build it with its own npm ci instead`);
      }
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/tsup/dist/cli-default.js')], { cwd: dir, stdio: 'ignore' });
      writeFileSync(marker, commit);
      return bin;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
