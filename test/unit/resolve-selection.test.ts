import { describe, expect, it } from 'vitest';
import { mergeChoices } from '../../src/core/choices.js';
import { UsageError } from '../../src/core/errors.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { resolveSelection } from '../../src/core/resolve-selection.js';

const registry = createRegistry(loadBuiltinModules());
const ids = (choices: Parameters<typeof mergeChoices>[0]) =>
  resolveSelection(mergeChoices(choices), registry).map((module) => module.manifest.id);

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('resolveSelection', () => {
  it('defaults to base + jwt (+ orgs when offered), base first', () => {
    expect(ids({ orgs: false })).toEqual(['base', 'jwt']);
    const defaults = ids({});
    expect(defaults.slice(0, 2)).toEqual(['base', 'jwt']);
    expect(defaults.includes('orgs')).toBe(registry.modules.has('orgs'));
  });

  it('names an unknown id, suggests the closest and lists the valid ones', () => {
    const message = usageError(() => ids({ auth: ['jtw'] }));
    expect(message).toContain("'jtw'");
    expect(message).toContain("Did you mean 'jwt'?");
    expect(message).toContain('Valid ids: jwt');
  });

  it('refuses an id of another category', () => {
    expect(usageError(() => ids({ oauth: ['jwt'] }))).toContain("Unknown --oauth id 'jwt'");
  });

  it('accepts oauth all and none', () => {
    expect(ids({ oauth: ['none'], orgs: false })).toEqual(['base', 'jwt']);
    const all = resolveSelection(mergeChoices({ oauth: ['all'] }), registry);
    expect(all.every((module) => ['base', 'direct', 'oauth', 'module'].includes(module.manifest.category))).toBe(true);
  });

  it('refuses an unknown template version and lists the releases', () => {
    const message = usageError(() => ids({ templateVersion: '9.9' }));
    expect(message).toContain("'9.9'");
    expect(message).toContain('1.0, 1.1, 2.0, 2.1, 2.2, 3.0, 3.1');
    expect(usageError(() => ids({ templateVersion: '3.10' }))).toContain('Valid releases');
  });

  it('offers jwt from release 1.0 on', () => {
    expect(ids({ templateVersion: '1.0' })).toEqual(['base', 'jwt']);
    expect(() => ids({ templateVersion: '1.0', orgs: true })).toThrow(/--orgs/);
  });

  it('refuses a selection without any way to sign in', () => {
    expect(usageError(() => ids({ auth: [] }))).toContain('at least one way to sign in');
    expect(usageError(() => ids({ auth: [], hosted: ['totp'] }))).toContain('totp is a second factor only');
    expect(ids({ auth: ['magic-link'], hosted: ['totp'], orgs: false })).toEqual(['base', 'magic-link', 'totp']);
  });

  it('brings the shared hosted machinery with a hosted service, which is a way to sign in on its own', () => {
    expect(ids({ auth: [], hosted: ['clerk'], orgs: false })).toEqual(['base', 'identities', 'hosted', 'hosted-token', 'clerk']);
    expect(ids({ auth: [], hosted: ['authjs', 'totp'], orgs: false })).toEqual(['base', 'identities', 'hosted', 'authjs', 'totp']);
    expect(usageError(() => ids({ hosted: ['hosted-token'] }))).toContain('Valid ids: auth0, authjs, clerk, supabase, totp.');
    expect(usageError(() => ids({ templateVersion: '3.0', hosted: ['supabase'] }))).toContain('first shipped in release 3.1');
  });

  it('refuses a database a chosen module has no migration for', () => {
    expect(usageError(() => ids({ db: 'mysql' }))).toContain('--db mysql is not supported yet');
  });
});
