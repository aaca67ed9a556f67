import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeCommandPath } from '../helpers/fake-command.js';
import { runCli } from '../helpers/run-cli.js';
import { KEYS, runInTerminal } from '../helpers/terminal.js';

// The prompts as a person meets them: the built CLI in a real pseudo-terminal (util-linux `script`).
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-tty-'));

/** A package manager that takes two seconds and succeeds, so the install step's spinner is seen without a real install. */
function slowPackageManager(): string {
  // It answers `npm --version` at once: the CLI checks the package manager runs before writing.
  return fakeCommandPath(path.join(work, 'slow-bin'), 'npm', ['[ "$1" = --version ] && echo 11.0.0 && exit 0', 'sleep 2', 'exit 0']);
}

/** A package manager whose install takes a minute, so Ctrl-C lands during it. */
function sleepingPackageManager(): string {
  return fakeCommandPath(path.join(work, 'sleeping-bin'), 'npm', ['[ "$1" = --version ] && echo 11.0.0 && exit 0', 'sleep 60', 'exit 0']);
}

const INTERNAL_NAMES = ['OAuth sign-in', 'Hosted auth services', 'Hosted token exchanges'];

describe('prompts check each answer as it is given (issue 24)', () => {
  it('the directory: a bad npm name, a file and a non-empty folder are refused in place; Enter takes the my-app shown', async () => {
    const cwd = path.join(work, 'typed');
    mkdirSync(path.join(cwd, 'busy'), { recursive: true });
    writeFileSync(path.join(cwd, 'busy', 'notes.txt'), 'mine');
    writeFileSync(path.join(cwd, 'taken'), 'a file');
    const erase = KEYS.backspace.repeat(12);
    const { code, output } = await runInTerminal(
      ['--no-install', '--no-git', '--auth', 'jwt', '--oauth', 'none', '--hosted', '', '--modules', '', '--no-orgs', '--no-pages', '--db', 'sqlite'],
      [
        { waitFor: /Where should the app go\?[\s\S]*my-app/, keys: `My App${KEYS.enter}` },
        { waitFor: /'My App' cannot be an npm package name/, keys: `${erase}node_modules${KEYS.enter}` },
        { waitFor: /'node_modules' is a name npm reserves/, keys: `${erase}taken${KEYS.enter}` },
        { waitFor: /'taken' is a file, not a directory/, keys: `${erase}busy${KEYS.enter}` },
        // Not empty: asked to confirm, and No (the default) asks for the directory again.
        { waitFor: /busy is not empty\. Write into it anyway\?/, keys: KEYS.enter },
        { waitFor: /Where should the app go\?/, keys: `${erase}${KEYS.enter}` },
        { waitFor: /Wrote \d+ files to .*my-app/ },
      ],
      { cwd },
    );
    expect(code, output).toBe(0);
    expect(JSON.parse(readFileSync(path.join(cwd, 'my-app', 'package.json'), 'utf8')).name).toBe('my-app');
    expect(readdirSync(path.join(cwd, 'busy'))).toEqual(['notes.txt']);
    // Refused where typed: no message about flags the user never typed.
    expect(output).not.toContain('--force');
  }, 90_000);

  it('the method lists offer no internal module; no sign-in method re-asks the method prompts with a message; Ctrl-C there exits 130 with one line and writes nothing', async () => {
    const dir = path.join(work, 'no-method');
    const { code, output } = await runInTerminal(
      [dir, '--no-git', '--no-install'],
      [
        // jwt is selected by default: space leaves it out.
        { waitFor: /Direct sign-in methods/, keys: `${KEYS.space}${KEYS.enter}` },
        // Walk the whole OAuth list (it shows 8 at a time), then choose none.
        { waitFor: /OAuth providers/, keys: `${KEYS.down.repeat(24)}${KEYS.enter}` },
        { waitFor: /Hosted services/, keys: KEYS.enter },
        { waitFor: /Choose at least one way to sign in[\s\S]*Direct sign-in methods/, keys: KEYS.ctrlC },
      ],
    );
    expect(code, output).toBe(130);
    for (const name of INTERNAL_NAMES) expect(output).not.toContain(name);
    expect(output).toMatch(/Twitch/); // the end of the OAuth list was shown
    expect(output).toMatch(/Clerk[\s\S]*Supabase/);
    expect(output.match(/Cancelled/g)).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
  }, 90_000);

  it('Ctrl-C during install: exit 130, no success mark for it, and the message names what is on disk and the commands that finish the job', async () => {
    const dir = path.join(work, 'interrupted');
    const { code, output } = await runInTerminal(
      [dir, '--yes', '--pm', 'npm'],
      [
        { waitFor: /Installing dependencies \(npm install\) \[\d+s\]/, keys: KEYS.ctrlC },
        { waitFor: /To finish:/ },
      ],
      { env: { PATH: sleepingPackageManager() } },
    );
    expect(code, output).toBe(130);
    expect(output).not.toMatch(/[◇◆✔]\s+Installing dependencies \(npm install\)(?!: interrupted)/);
    expect(output).not.toContain('Your app is ready');
    expect(output).toContain(`The project is written to ${dir}`);
    expect(output).toContain('Not run: database migrations (db:migrate), git init and a first commit.');
    expect(output).toContain(`To finish: cd ${dir} && npm install && npm run db:migrate && git init -b main && git add -A && git commit -m "Initial commit from create-gatekit"`);
    expect(existsSync(path.join(dir, 'gatekit.json'))).toBe(true);
    expect(existsSync(path.join(dir, '.git'))).toBe(false);
  }, 90_000);
});

/** A git whose `init` takes a minute (and says so on the terminal), so Ctrl-C lands during it. */
function sleepingGit(): string {
  return fakeCommandPath(path.join(work, 'sleeping-git-bin'), 'git', [
    'for arg in "$@"; do case "$arg" in',
    '  --version) echo "git version 2.39.5"; exit 0 ;;',
    '  rev-parse|config) exit 1 ;;',
    '  init) echo "stand-in git init" > /dev/tty; sleep 60; exit 0 ;;',
    'esac; done',
    'exit 0',
  ]);
}

describe('Ctrl-C during git (issue 24, row 3)', () => {
  it('exit 130, no success mark, and the message names what is on disk and the git commands that finish the job', async () => {
    const dir = path.join(work, 'interrupted-git');
    const { code, output } = await runInTerminal(
      [dir, '--yes', '--no-install', '--pm', 'npm'],
      [{ waitFor: /stand-in git init/, keys: KEYS.ctrlC }, { waitFor: /To finish:/ }],
      { env: { PATH: sleepingGit() } },
    );
    expect(code, output).toBe(130);
    expect(output).not.toContain('Created a git repository');
    expect(output).toContain('git init and a first commit was interrupted.');
    expect(output).toContain(`The project is written to ${dir}`);
    expect(output).toContain(`To finish: cd ${dir} && git init -b main && git add -A && git commit -m "Initial commit from create-gatekit"`);
    expect(existsSync(path.join(dir, 'gatekit.json'))).toBe(true);
  }, 90_000);
});

describe('PostgreSQL in a terminal (issue 24, row 5)', () => {
  it('without DATABASE_URL the URL is asked for and each answer must reach a server (password masked) before anything is written', async () => {
    const dir = path.join(work, 'tty-pg');
    const erase = KEYS.backspace.repeat(60);
    const { code, output } = await runInTerminal(
      [dir, '--db', 'postgresql', '--auth', 'jwt', '--oauth', 'none', '--hosted', '', '--modules', '', '--no-orgs', '--no-pages', '--install', '--no-git', '--pm', 'npm'],
      [
        { waitFor: /DATABASE_URL of a running PostgreSQL server/, keys: `postgresql://app:s3cret-word@127.0.0.1:1/app${KEYS.enter}` },
        { waitFor: /postgresql:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/app: cannot connect to 127\.0\.0\.1:1 \(ECONNREFUSED\)/, keys: `${erase}postgresql://postgres@127.0.0.1:5432/test${KEYS.enter}` },
        { waitFor: /Next steps/ },
      ],
      { env: { PATH: slowPackageManager(), DATABASE_URL: '' } },
    );
    expect(code, output).toBe(0);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toMatch(/^DATABASE_URL=postgresql:\/\/postgres@127\.0\.0\.1:5432\/test$/m);
  }, 90_000);
});

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
        { waitFor: /Feature modules[\s\S]*Admin[\s\S]*API keys/, keys: KEYS.enter },
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
        // Admin comes first in the list (the focused one shows its hint), then API keys: down twice to Apple.
        { waitFor: /Modules to add[\s\S]*Admin \(module: /, keys: `${KEYS.down}${KEYS.down}` },
        { waitFor: /Apple \(oauth: /, keys: `${KEYS.space}${KEYS.enter}` },
        { waitFor: /Added apple/ },
      ],
      { timeoutMs: 50_000 },
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/Adding apple \(with identities, oauth, which it needs\)/);
    for (const name of INTERNAL_NAMES) expect(output).not.toContain(name);
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
