import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeChoices } from '../../src/core/choices.js';
import { CHOICES_FIELD, choicesSelecting, choosableModules } from '../../src/core/choosable-modules.js';
import { UsageError } from '../../src/core/errors.js';
import { loadModule, MANIFEST_FILE } from '../../src/core/manifest.js';
import { createRegistry, loadBuiltinModules, type ModuleRegistry } from '../../src/core/registry.js';
import { resolveSelection } from '../../src/core/resolve-selection.js';

const registry = createRegistry(loadBuiltinModules());
const ids = (choices: Parameters<typeof mergeChoices>[0], from: ModuleRegistry = registry) =>
  resolveSelection(mergeChoices(choices), from).map((module) => module.manifest.id);
const noFeatures = { orgs: false, pages: false };

/** A pack's feature module: a folder with only a manifest. */
function packModule(manifest: object) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-feature-'));
  writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ category: 'module', tag: '3.2', ...manifest }));
  return loadModule(dir, 'test pack');
}

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
  it('defaults to base + jwt + the default-on feature modules the release offers, base first', () => {
    expect(ids({ toggles: noFeatures })).toEqual(['base', 'jwt']);
    expect(ids({})).toEqual(['base', 'jwt', 'orgs', 'pages']);
    expect(ids({ templateVersion: '3.1' })).toEqual(['base', 'jwt', 'orgs']);
    expect(ids({ templateVersion: '2.2' })).toEqual(['base', 'jwt']);
  });

  it("switches each feature module by its own flag, and --no-<id> drops a default-on one", () => {
    expect(ids({ toggles: { pages: false } })).toEqual(['base', 'jwt', 'orgs']);
    expect(ids({ toggles: { orgs: false } })).toEqual(['base', 'jwt', 'pages']);
    expect(ids({ toggles: { orgs: true, pages: true } })).toEqual(['base', 'jwt', 'orgs', 'pages']);
    expect(usageError(() => ids({ templateVersion: '3.1', toggles: { pages: true } }))).toContain('--pages needs Built-in pages, first shipped in release 3.2');
    expect(usageError(() => ids({ toggles: { totp: true } }))).toContain("no feature module 'totp' has its own flag");
  });

  it('adds feature modules named by --modules, in registry order, and refuses unknown or contradicting ones', () => {
    const audit = packModule({ id: 'audit-log', name: 'Audit log', description: 'who did what' });
    const extended = createRegistry([...loadBuiltinModules(), audit]);
    expect(ids({}, extended)).toEqual(['base', 'jwt', 'orgs', 'pages']);
    expect(ids({ modules: ['audit-log', 'pages'], toggles: { orgs: false } }, extended)).toEqual(['base', 'jwt', 'pages', 'audit-log']);
    const unknown = usageError(() => ids({ modules: ['page'] }));
    expect(unknown).toContain("Unknown --modules id 'page'");
    expect(unknown).toContain("Did you mean 'pages'?");
    expect(usageError(() => ids({ modules: ['identities'] }))).toContain('Valid ids: admin, api-keys, audit, orgs, pages');
    expect(usageError(() => ids({ modules: ['pages'], toggles: { pages: false } }))).toContain('contradict');
    expect(usageError(() => ids({ modules: ['pages'], templateVersion: '3.1' }))).toContain('first shipped in release 3.2');
  });

  it("takes a pack's feature module flag and default from its manifest", () => {
    const audit = packModule({ id: 'audit-log', name: 'Audit log', description: 'who did what', flag: { default: false, prompt: 'Keep an audit log?' } });
    const extended = createRegistry([...loadBuiltinModules(), audit]);
    expect(ids({ toggles: noFeatures }, extended)).toEqual(['base', 'jwt']);
    expect(ids({ toggles: { ...noFeatures, 'audit-log': true } }, extended)).toEqual(['base', 'jwt', 'audit-log']);
    const onByDefault = packModule({ id: 'audit-log', name: 'Audit log', description: 'who did what', flag: { default: true, prompt: 'Keep an audit log?' } });
    expect(ids({ toggles: noFeatures }, createRegistry([...loadBuiltinModules(), onByDefault]))).toEqual(['base', 'jwt', 'audit-log']);
  });

  it('adds an internal module that is selectedWith the chosen ones, only when every one of them is chosen', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-companion-'));
    writeFileSync(
      path.join(dir, MANIFEST_FILE),
      JSON.stringify({ id: 'orgs-and-magic', name: 'Companion', category: 'module', tag: '3.2', description: 'joins orgs and magic-link', internal: true, requires: ['orgs'], selectedWith: ['orgs', 'magic-link'] }),
    );
    const withCompanion = createRegistry([...loadBuiltinModules(), loadModule(dir, 'test pack')]);
    expect(ids({ auth: ['jwt', 'magic-link'], toggles: { pages: false } }, withCompanion)).toEqual(['base', 'jwt', 'magic-link', 'orgs', 'orgs-and-magic']);
    expect(ids({ auth: ['jwt', 'magic-link'], toggles: noFeatures }, withCompanion)).not.toContain('orgs-and-magic');
    expect(ids({ auth: ['jwt'], toggles: { pages: false } }, withCompanion)).not.toContain('orgs-and-magic');
    // Never chosen by hand.
    expect(usageError(() => ids({ auth: ['jwt'], modules: ['orgs-and-magic'] }, withCompanion))).toMatch(/Unknown --modules id 'orgs-and-magic'/);
  });

  it('refuses selectedWith on a module that is not internal', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-companion-'));
    writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ id: 'loud', name: 'Loud', category: 'module', tag: '3.2', description: 'x', selectedWith: ['orgs'] }));
    expect(() => loadModule(dir, 'test pack')).toThrow(/selectedWith: only an internal module/);
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
    expect(ids({ oauth: ['none'], toggles: noFeatures })).toEqual(['base', 'jwt']);
    const all = resolveSelection(mergeChoices({ oauth: ['all'] }), registry);
    expect(all.every((module) => ['base', 'direct', 'oauth', 'module'].includes(module.manifest.category))).toBe(true);
  });

  it('refuses an unknown template version and lists the releases', () => {
    const message = usageError(() => ids({ templateVersion: '9.9' }));
    expect(message).toContain("'9.9'");
    expect(message).toContain('1.0, 1.1, 2.0, 2.1, 2.2, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 4.0, 4.1');
    expect(usageError(() => ids({ templateVersion: '3.10' }))).toContain('Valid releases');
  });

  it('offers jwt from release 1.0 on', () => {
    expect(ids({ templateVersion: '1.0' })).toEqual(['base', 'jwt']);
    expect(() => ids({ templateVersion: '1.0', toggles: { orgs: true } })).toThrow(/--orgs needs Organizations, first shipped in release 3.0/);
  });

  it('refuses a selection without any way to sign in', () => {
    expect(usageError(() => ids({ auth: [] }))).toContain('at least one way to sign in');
    expect(usageError(() => ids({ auth: [], hosted: ['totp'] }))).toContain('totp is a second factor only');
    expect(ids({ auth: ['magic-link'], hosted: ['totp'], toggles: noFeatures })).toEqual(['base', 'magic-link', 'totp']);
  });

  it('refuses passkeys alone, which sign in accounts that another method creates', () => {
    expect(usageError(() => ids({ auth: ['passkey'] }))).toContain('passkey only signs in accounts made another way');
    expect(usageError(() => ids({ auth: ['passkey'], hosted: ['totp'] }))).toContain('(totp is a second factor only; passkey only signs in accounts made another way)');
    expect(ids({ auth: ['jwt', 'passkey'], toggles: noFeatures })).toEqual(['base', 'jwt', 'passkey']);
    expect(ids({ auth: ['passkey'], hosted: ['clerk'], toggles: noFeatures })).toEqual(['base', 'passkey', 'identities', 'hosted', 'hosted-token', 'clerk']);
  });

  it('brings the shared hosted machinery with a hosted service, which is a way to sign in on its own', () => {
    expect(ids({ auth: [], hosted: ['clerk'], toggles: noFeatures })).toEqual(['base', 'identities', 'hosted', 'hosted-token', 'clerk']);
    expect(ids({ auth: [], hosted: ['authjs', 'totp'], toggles: noFeatures })).toEqual(['base', 'identities', 'hosted', 'authjs', 'totp']);
    expect(usageError(() => ids({ hosted: ['hosted-token'] }))).toContain('Valid ids: auth0, authjs, clerk, supabase, totp.');
    expect(usageError(() => ids({ templateVersion: '3.0', hosted: ['supabase'] }))).toContain('first shipped in release 3.1');
  });

  it('refuses a database a chosen module has no migration for', () => {
    expect(usageError(() => ids({ db: 'mysql' }))).toContain('--db mysql is not supported yet');
  });
});

describe('the modules a user can choose', () => {
  const idsOf = (modules: { manifest: { id: string } }[]) => modules.map((module) => module.manifest.id);

  it('never offer an internal building block or the base, in any category (the prompts offered oauth, hosted and hosted-token before)', () => {
    const offered = idsOf(choosableModules(registry));
    for (const internal of ['base', 'oauth', 'hosted', 'hosted-token', 'identities']) expect(offered).not.toContain(internal);
    expect(idsOf(choosableModules(registry, { category: 'oauth' }))).toContain('github');
    expect(idsOf(choosableModules(registry, { category: 'hosted' }))).toEqual(expect.arrayContaining(['clerk', 'totp']));
  });

  it('are filtered by template version and database as the generator checks them', () => {
    expect(idsOf(choosableModules(registry, { templateVersion: '2.0' }))).not.toContain('orgs');
    expect(idsOf(choosableModules(registry, { templateVersion: '3.0' }))).toContain('orgs');
    expect(idsOf(choosableModules(registry, { db: 'mysql' }))).not.toContain('orgs');
  });

  it('select again exactly what they resolved to', () => {
    const choices = mergeChoices({ auth: ['jwt'], oauth: ['all'], hosted: ['totp'], toggles: { pages: false } });
    const modules = resolveSelection(choices, registry);
    const again = choicesSelecting(modules, registry, choices.templateVersion);
    const providers = idsOf(choosableModules(registry, { category: 'oauth' }));
    // The defaults resolved: orgs is on by default, and named so a later default does not change it.
    expect(again).toEqual({ auth: ['jwt'], oauth: providers, hosted: ['totp'], modules: [], toggles: { orgs: true, pages: false } });
    expect(resolveSelection(mergeChoices(again), registry)).toEqual(modules);
  });

  it('put each category in its own field and flag', () => {
    expect(CHOICES_FIELD).toEqual({ direct: 'auth', oauth: 'oauth', hosted: 'hosted', module: 'modules' });
    expect(usageError(() => ids({ hosted: ['github'] }))).toMatch(/^Unknown --hosted id 'github'/);
  });
});
