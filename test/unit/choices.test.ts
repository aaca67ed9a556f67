import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectPackageManager, mergeChoices, readConfigFile } from '../../src/core/choices.js';
import { UsageError } from '../../src/core/errors.js';
import { choicesFromFlags } from '../../src/cli/flags.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-config-'));
function configFile(content: string): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, content);
  return file;
}

describe('config files', () => {
  it('reads the same choices as the flags, ids as arrays or comma strings', () => {
    const file = configFile(JSON.stringify({ auth: 'jwt, magic-link', oauth: ['github'], modules: 'pages', db: 'postgresql', install: false }));
    expect(readConfigFile(file)).toEqual({ auth: ['jwt', 'magic-link'], oauth: ['github'], modules: ['pages'], db: 'postgresql', install: false });
  });

  it("reads each feature module's own flag as a boolean key, into toggles", () => {
    const file = configFile(JSON.stringify({ orgs: false, pages: true, db: 'sqlite' }));
    expect(readConfigFile(file, ['orgs', 'pages'])).toEqual({ toggles: { orgs: false, pages: true }, db: 'sqlite' });
    expect(() => readConfigFile(file, ['orgs'])).toThrow(/pages/);
    expect(() => readConfigFile(configFile('{"orgs": "yes"}'), ['orgs'])).toThrow(/orgs/);
    expect(() => readConfigFile(configFile('{"org": true}'), ['orgs', 'pages'])).toThrow(/Valid keys: .*modules, .*orgs, pages/);
  });

  it('merges toggles per module: a flag overrides only its own key of the config file', () => {
    const fromFile = { toggles: { orgs: false, pages: false } };
    const fromFlags = choicesFromFlags({ pack: [], toggles: { pages: true } });
    expect(mergeChoices(fromFile, fromFlags).toggles).toEqual({ orgs: false, pages: true });
  });

  it('reports invalid JSON, unknown keys and wrong types as usage errors', () => {
    expect(() => readConfigFile(configFile('{ not json'))).toThrow(UsageError);
    expect(() => readConfigFile(configFile('{"dbs": "sqlite"}'))).toThrow(/dbs/);
    expect(() => readConfigFile(configFile('{"db": "oracle"}'))).toThrow(/db/);
    expect(() => readConfigFile(path.join(dir, 'missing.json'))).toThrow(/missing\.json': no such file\./);
  });

  it('lets flags override the config file', () => {
    const fromFile = readConfigFile(configFile(JSON.stringify({ db: 'postgresql', git: false })));
    const fromFlags = choicesFromFlags({ db: 'sqlite', pack: [] });
    expect(mergeChoices(fromFile, fromFlags)).toMatchObject({ db: 'sqlite', git: false, install: true });
  });
});

describe('flags', () => {
  it('suggests the closest database and package manager', () => {
    expect(() => choicesFromFlags({ db: 'postgres', pack: [] })).toThrow(/Did you mean 'postgresql'/);
    expect(() => choicesFromFlags({ pm: 'pnmp', pack: [] })).toThrow(/Did you mean 'pnpm'/);
  });

  it('detects the invoking package manager', () => {
    expect(detectPackageManager('pnpm/9.0.0 npm/? node/v20.19.0 linux x64')).toBe('pnpm');
    expect(detectPackageManager('yarn/4.1.0 npm/? node/v20')).toBe('yarn');
    expect(detectPackageManager('')).toBe('npm');
  });
});
