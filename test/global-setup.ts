import { execFileSync } from 'node:child_process';
import { clearSharedFixtureMarkers } from './helpers/fixtures.js';

/** The CLI tests run the built bin, so build it once per run; shared fixtures start fresh. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: 'ignore' });
  clearSharedFixtureMarkers();
}
