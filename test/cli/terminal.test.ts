import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { KEYS, runInTerminal } from '../helpers/terminal.js';

// The prompts as a person meets them: the built CLI in a real pseudo-terminal (util-linux `script`).
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-tty-'));

/** A package manager that takes two seconds and succeeds, so the install step's spinner is seen without a real install. */
function slowPackageManager(): string {
  const bin = path.join(work, 'slow-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nsleep 2\nexit 0\n');
  chmodSync(path.join(bin, 'npm'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

describe('in a terminal', () => {
  it('generate: OAuth multiselect with callback hints, mysql shown unavailable, spinner with elapsed time, next steps as a note and outro', async () => {
    const dir = path.join(work, 'tty-app');
    const { code, output } = await runInTerminal(
      [dir, '--no-git', '--pm', 'npm'],
      [
        { waitFor: /Direct sign-in methods/, keys: KEYS.enter },
        { waitFor: /OAuth providers[\s\S]*Apple \(callback http:\/\/localhost:3000\/api\/auth\/apple\/callback\)/, keys: KEYS.down },
        { waitFor: /Discord \(callback http:\/\/localhost:3000\/api\/auth\/discord\/callback\)/, keys: `${KEYS.space}${KEYS.enter}` },
        { waitFor: /Hosted services/, keys: KEYS.enter },
        { waitFor: /Add organizations/, keys: KEYS.enter },
        { waitFor: /Serve built-in pages/, keys: KEYS.enter },
        { waitFor: /Database[\s\S]*sqlite[\s\S]*mysql \(unavailable: no migrations for it yet/, keys: KEYS.enter },
        { waitFor: /Install dependencies and prepare the database now\?/, keys: KEYS.enter },
        { waitFor: /Your app is ready/ },
      ],
      { env: { PATH: slowPackageManager() } },
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/Installing dependencies \(npm install\) \[\d+s\]/);
    expect(output).toMatch(/Next steps[\s\S]*Discord: create credentials at .* with the callback URL http:\/\/localhost:3000\/api\/auth\/discord\/callback/);
    expect(output).not.toContain('… Installing');
    expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8')).modules.map((module: { id: string }) => module.id)).toContain('discord');
  }, 90_000);

  it('add without ids asks for the modules', async () => {
    const dir = path.join(work, 'tty-add');
    expect(runCli([dir, '--yes', '--no-install', '--no-git', '--auth', 'jwt', '--no-orgs', '--no-pages']).status).toBe(0);
    const { code, output } = await runInTerminal(
      ['add', '--cwd', dir, '--no-install'],
      [
        { waitFor: /Modules to add[\s\S]*Apple \(oauth: /, keys: `${KEYS.space}${KEYS.enter}` },
        { waitFor: /Added apple/ },
      ],
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/Adding apple \(with identities, oauth, which it needs\)/);
    expect(JSON.parse(readFileSync(path.join(dir, 'gatekit.json'), 'utf8')).modules.map((module: { id: string }) => module.id)).toContain('apple');
  }, 60_000);

  it('without a terminal the same run prints plain lines (no spinner frames)', () => {
    const dir = path.join(work, 'plain-app');
    const result = runCli([dir, '--yes', '--no-git', '--pm', 'npm'], { env: { PATH: slowPackageManager() } });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('… Installing dependencies (npm install)');
    expect(result.stdout).toMatch(/✔ Installing dependencies \(npm install\) \(\d+\.\ds\)/);
    expect(result.stdout).not.toMatch(/[◒◐◓◑]/);
  }, 60_000);
});
