import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { clearSharedFixtureMarkers, WORK_DIR } from './helpers/fixtures.js';
import { BIN_ENV, ROOT } from './helpers/run-cli.js';

/**
 * The CLI tests run the built bin. Each run builds its own copy under test/tmp/cli-*, beside the
 * repository's templates, frozen releases (releases/) and package.json as in the published package, so a run never rebuilds
 * the CLI another run in parallel is starting. Shared fixtures start fresh.
 */
export default function setup(): () => void {
  mkdirSync(WORK_DIR, { recursive: true });
  const dir = mkdtempSync(path.join(WORK_DIR, 'cli-'));
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js', '--out-dir', path.join(dir, 'dist')], { cwd: ROOT, stdio: 'ignore' });
  for (const entry of ['templates', 'releases', 'package.json']) symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
  mkdirSync(path.join(dir, 'bin'));
  copyFileSync(path.join(ROOT, 'bin/create-gatekit.js'), path.join(dir, 'bin/create-gatekit.js'));
  process.env[BIN_ENV] = path.join(dir, 'bin/create-gatekit.js');
  clearSharedFixtureMarkers();
  return () => rmSync(dir, { recursive: true, force: true });
}
