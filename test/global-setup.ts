import { execFileSync } from 'node:child_process';

/** The CLI tests run the built bin, so build it once per run. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: 'ignore' });
}
