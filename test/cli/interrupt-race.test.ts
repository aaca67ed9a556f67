import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeCommandPath } from '../helpers/fake-command.js';
import { runCli } from '../helpers/run-cli.js';

// Issue 31, item 9: Ctrl-C during install exited 1 instead of 130 once in five runs on a loaded
// machine: the package manager, interrupted too, failed, and its failure reached the CLI before
// the interrupt did.
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-interrupt-race-'));

/**
 * An npm that fails its install at once and, once the CLI has handled that exit (reaped the
 * process: `kill -0` no longer finds it), has a helper interrupt the CLI. So the failure always
 * arrives first, and the interrupt 50 ms after the CLI saw it.
 */
const npmFailingBeforeTheInterrupt = fakeCommandPath(path.join(work, 'bin'), 'npm', [
  '[ "$1" = --version ] && echo 11.0.0 && exit 0',
  'cli=$PPID',
  'me=$$',
  '( while kill -0 "$me" 2>/dev/null; do sleep 0.01; done; sleep 0.05; kill -INT "$cli" ) </dev/null >/dev/null 2>&1 &',
  'echo "npm error canceled" >&2',
  'exit 1',
]);

const env = { PATH: npmFailingBeforeTheInterrupt, npm_config_user_agent: '' };

describe('an interrupt that reaches the CLI after the failure it caused is still an interrupt', () => {
  it('generate: exit 130 every time, with what is on disk and the commands that finish the job', () => {
    for (const run of [1, 2, 3]) {
      const dir = path.join(work, `app-${run}`);
      const result = runCli([dir, '--yes', '--no-git', '--pm', 'npm', '--auth', 'jwt', '--no-orgs', '--no-pages'], { env });
      expect([result.status, result.signal], `run ${run}: ${result.stderr}`).toEqual([130, null]);
      expect(result.stderr).toContain("create-gatekit: interrupted during 'install'.");
      expect(result.stderr).toContain(`To finish: cd ${dir} && npm install && npm run db:migrate`);
      expect(result.stderr).not.toContain('failed');
    }
  }, 60_000);

  it('add: exit 130, and the files are put back', () => {
    const dir = path.join(work, 'add-app');
    expect(runCli([dir, '--yes', '--no-install', '--no-git', '--auth', 'jwt', '--no-orgs', '--no-pages']).status).toBe(0);
    const before = readFileSync(path.join(dir, 'gatekit.json'), 'utf8');
    const result = runCli(['add', 'totp', '--cwd', dir], { env });
    expect([result.status, result.signal], result.stderr).toEqual([130, null]);
    expect(result.stderr).toContain("interrupted during 'install'");
    expect(result.stderr).toContain(`To finish: create-gatekit add totp --cwd ${dir}`);
    expect(readFileSync(path.join(dir, 'gatekit.json'), 'utf8')).toBe(before);
  }, 60_000);
});
