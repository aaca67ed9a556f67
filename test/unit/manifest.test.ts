import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestError } from '../../src/core/errors.js';
import { loadModule, MANIFEST_FILE } from '../../src/core/manifest.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';

const ROUTE_PATH = /router\.(?:get|post|put|patch|delete|all|use)\(\s*'([^']*)'/g;

function moduleDir(manifest: object): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-module-'));
  writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  return dir;
}

const valid = { id: 'acme-sso', name: 'Acme SSO', category: 'oauth', tag: '3.1', description: 'Acme single sign-on' };

describe('module manifests', () => {
  it('loads a minimal valid manifest with defaults', () => {
    const { manifest } = loadModule(moduleDir(valid), 'test');
    expect(manifest).toMatchObject({ ...valid, requires: [], dependencies: [], env: [], routers: [] });
  });

  it('names the file and the field of an invalid manifest', () => {
    for (const [field, value] of [['id', 'Bad Id'], ['tag', 'v3'], ['category', 'plugin']] as const) {
      const dir = moduleDir({ ...valid, [field]: value });
      expect(() => loadModule(dir, 'test')).toThrow(ManifestError);
      expect(() => loadModule(dir, 'test')).toThrow(new RegExp(`${field}`));
    }
  });

  it('refuses a manifest that names a missing file', () => {
    expect(() => loadModule(moduleDir({ ...valid, schema: 'schema.prisma' }), 'test')).toThrow(/schema.prisma/);
  });

  it('gives its own flag only to a feature module', () => {
    const flag = { default: true, prompt: 'Add it?' };
    expect(loadModule(moduleDir({ ...valid, category: 'module', flag }), 'test').manifest.flag).toEqual(flag);
    expect(() => loadModule(moduleDir({ ...valid, flag }), 'test')).toThrow(/flag: only a feature module/);
    expect(() => loadModule(moduleDir({ ...valid, category: 'module', internal: true, flag }), 'test')).toThrow(/flag/);
    expect(() => loadModule(moduleDir({ ...valid, category: 'module', flag: { default: 'yes' } }), 'test')).toThrow(/flag\.default/);
  });

  it('refuses a filesWith folder that does not exist', () => {
    expect(() => loadModule(moduleDir({ ...valid, filesWith: { jwt: 'with-jwt' } }), 'test')).toThrow(/with-jwt/);
  });

  it('refuses a duplicate id and an unknown requirement', () => {
    const dir = moduleDir({ ...valid, id: 'jwt' });
    expect(() => createRegistry([...loadBuiltinModules(), loadModule(dir, 'pack')])).toThrow(/declared twice/);
    const needs = moduleDir({ ...valid, requires: ['nothing-here'] });
    mkdirSync(path.join(needs, 'files'));
    expect(() => createRegistry([loadModule(needs, 'pack')])).toThrow(/nothing-here/);
  });

  it('takes a router prefix only as a plain path', () => {
    const router = { import: './modules/acme/acme.routes.js', name: 'createAcmeRoutes' };
    expect(loadModule(moduleDir({ ...valid, routers: [{ ...router, prefix: '/api/acme' }] }), 'test').manifest.routers[0]!.prefix).toBe('/api/acme');
    for (const prefix of ['api/acme', '/api/acme/', '/api/(.*)', "/api/'acme"]) {
      expect(() => loadModule(moduleDir({ ...valid, routers: [{ ...router, prefix }] }), 'test')).toThrow(/prefix/);
    }
  });

  it('writes every route of a built-in router under the prefix it is mounted on', () => {
    let checked = 0;
    for (const { manifest, dir } of loadBuiltinModules()) {
      for (const { import: file, prefix } of manifest.routers) {
        if (!prefix) continue;
        const template = path.join(dir, 'files/src', file.replace(/\.js$/, '.ts'));
        const source = readFileSync(existsSync(template) ? template : `${template}.hbs`, 'utf8');
        for (const [, route] of source.matchAll(ROUTE_PATH)) {
          expect(route === prefix || route!.startsWith(`${prefix}/`), `${manifest.id}: ${route} is outside ${prefix}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('ships every built-in module in the pack format', () => {
    const ids = loadBuiltinModules().map((module) => module.manifest.id);
    expect(ids).toContain('base');
    expect(ids).toContain('jwt');
  });
});
