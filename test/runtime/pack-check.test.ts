import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/run-cli.js';

describe('create-gatekit pack check, the whole way', () => {
  it('installs a sample app with the audit-log pack, type-checks it and runs its own tests (the pack\'s included)', () => {
    const result = runCli(['pack', 'check', path.join(ROOT, 'examples/packs/audit-log')]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('✔ Migrations of audit-log match Prisma\'s schema engine (sqlite, postgresql)');
    expect(result.stdout).toContain('✔ The sample app type-checks (tsc --noEmit, strict)');
    expect(result.stdout).toMatch(/✔ The sample app's own tests pass \(\d+ passed\)/);
    expect(result.stdout).toContain('The pack is ready to publish.');
  }, 900_000);
});
