import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

// --pm is checked before anything is written (CONTRACT A.2 "Package managers").
const work = mkdtempSync(path.join(tmpdir(), 'gatekit-pm-check-'));
/** A PATH on which no package manager (and no node) can be found; the CLI itself runs on process.execPath. */
const emptyPath = path.join(work, 'empty-bin');
mkdirSync(emptyPath);

describe('--pm with a package manager that is not installed', () => {
  it.each([
    ['pnpm', 'corepack enable pnpm'],
    ['yarn', 'corepack enable yarn'],
    ['bun', 'npm install --global bun'],
    ['npm', 'https://nodejs.org'],
  ])('--pm %s exits 2 before writing anything and says how to get it', (pm, howTo) => {
    const dir = path.join(work, `missing-${pm}`);
    const result = runCli([dir, '--yes', '--auth', 'jwt', '--pm', pm], { env: { PATH: emptyPath } });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`--pm ${pm}: '${pm}' cannot be run here`);
    expect(result.stderr).toContain(howTo);
    expect(result.stderr).toContain('--no-install');
    expect(existsSync(dir)).toBe(false);
  });

  it('a dry run refuses it the same way, as the real run would', () => {
    const result = runCli([path.join(work, 'dry'), '--yes', '--auth', 'jwt', '--pm', 'pnpm', '--dry-run'], { env: { PATH: emptyPath } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('corepack enable pnpm');
  });

  it('--no-install does not need it: the project is written with its files for that package manager', () => {
    const dir = path.join(work, 'no-install-pnpm');
    const result = runCli([dir, '--yes', '--auth', 'jwt', '--pm', 'pnpm', '--no-install', '--no-git'], { env: { PATH: emptyPath } });
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'pnpm-workspace.yaml'))).toBe(true);
    expect(result.stdout).toContain('pnpm install');
  });
});
