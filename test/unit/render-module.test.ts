import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeChoices, type PartialChoices } from '../../src/core/choices.js';
import { FileTree } from '../../src/core/file-tree.js';
import { generateProject } from '../../src/core/generate-project.js';
import { loadModule, MANIFEST_FILE } from '../../src/core/manifest.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { buildRenderContext } from '../../src/core/render-context.js';
import { renderModule } from '../../src/core/render-module.js';

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe('renderModule', () => {
  it('renders a filesWith folder only when its module is chosen too', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-render-'));
    write(path.join(dir, MANIFEST_FILE), JSON.stringify({ id: 'help', name: 'Help', category: 'module', tag: '3.2', description: 'help pages', filesWith: { jwt: 'with-jwt' } }));
    write(path.join(dir, 'files/public/help.html'), '<h1>Help</h1>\n');
    write(path.join(dir, 'with-jwt/public/password-help.html.hbs'), '<h1>Passwords of {{projectName}}</h1>\n');
    const module = loadModule(dir, 'test pack');
    const render = (ids: string[]) => {
      const tree = new FileTree();
      const modules = [module, ...ids.map((id) => createRegistry(loadBuiltinModules()).modules.get(id)!)];
      renderModule(module, buildRenderContext(modules, { projectName: 'demo', db: 'sqlite', generatorVersion: '0.0.0' }), tree);
      return Object.fromEntries(tree.entries());
    };
    expect(render(['jwt'])).toEqual({ 'public/help.html': '<h1>Help</h1>\n', 'public/password-help.html': '<h1>Passwords of demo</h1>\n' });
    expect(render(['magic-link'])).toEqual({ 'public/help.html': '<h1>Help</h1>\n' });
  });

  it('renders a filesWith folder keyed by several modules (a+b) only when all of them are chosen', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gatekit-render-'));
    write(path.join(dir, MANIFEST_FILE), JSON.stringify({ id: 'help', name: 'Help', category: 'module', tag: '3.2', description: 'help pages', filesWith: { 'jwt+totp': 'with-jwt-totp' } }));
    write(path.join(dir, 'with-jwt-totp/public/both.html'), '<h1>Both</h1>\n');
    const module = loadModule(dir, 'test pack');
    const registry = createRegistry(loadBuiltinModules());
    const render = (ids: string[]) => {
      const tree = new FileTree();
      renderModule(module, buildRenderContext([module, ...ids.map((id) => registry.modules.get(id)!)], { projectName: 'demo', db: 'sqlite', generatorVersion: '0.0.0' }), tree);
      return tree.paths();
    };
    expect(render(['jwt', 'totp'])).toEqual(['public/both.html']);
    expect(render(['jwt'])).toEqual([]);
    expect(render(['totp'])).toEqual([]);
  });
});

describe('the pages module', () => {
  const pagesOf = (choices: PartialChoices) =>
    generateProject({ projectName: 'demo', choices: mergeChoices(choices, { pm: 'npm' }), registry: createRegistry(loadBuiltinModules()) })
      .tree.entries()
      .map(([file]) => file)
      .filter((file) => file.startsWith('public/') && file.endsWith('.html'))
      .sort();

  it('has a page only for the modules chosen', () => {
    expect(pagesOf({ auth: ['jwt'], toggles: { orgs: false } })).toEqual(['public/account.html', 'public/index.html', 'public/reset-password.html', 'public/verify-email.html']);
    expect(pagesOf({ auth: ['magic-link'], hosted: ['totp'] })).toEqual([
      'public/account.html',
      'public/index.html',
      'public/invite/[token].html',
      'public/magic-link.html',
      'public/organizations.html',
      'public/two-factor.html',
    ]);
    expect(pagesOf({ auth: ['jwt'], oauth: ['github'], toggles: { orgs: false } })).toContain('public/auth/callback.html');
    expect(pagesOf({ toggles: { pages: false } })).toEqual([]);
    expect(pagesOf({ auth: ['jwt'], modules: ['admin'], toggles: { orgs: false } })).toContain('public/admin.html');
    expect(pagesOf({ auth: ['jwt'], toggles: { orgs: false } })).not.toContain('public/admin.html');
  });

  // Issue 31, item 9: an app with passkey and pages but without totp shipped two-factor-passkey.js,
  // which only the two-factor page (totp) loads.
  it('ships every asset a page loads, and no asset that nothing loads, for each mix of modules', () => {
    const reference = /(?:src|href)="\/assets\/([^"]+)"|from '\.\/([^']+)'|import\('\.\/([^']+)'\)/g;
    for (const auth of [['jwt'], ['magic-link'], ['jwt', 'passkey'], ['magic-link', 'passkey'], ['jwt', 'magic-link', 'passkey']]) {
      for (const hosted of [[], ['totp']]) {
        for (const oauth of [[], ['github']]) {
          for (const [orgs, modules] of [[false, []], [true, []], [false, ['admin']], [true, ['admin']]] as const) {
            const choices = { auth, hosted, oauth, modules: [...modules], toggles: { orgs } };
            const tree = generateProject({ projectName: 'demo', choices: mergeChoices(choices, { pm: 'npm' }), registry: createRegistry(loadBuiltinModules()) }).tree;
            const shipped = tree.paths().filter((file) => file.startsWith('public/assets/'));
            const loaded = new Set<string>();
            const queue = tree.paths().filter((file) => file.startsWith('public/') && file.endsWith('.html'));
            while (queue.length > 0) {
              for (const match of tree.get(queue.pop()!)!.matchAll(reference)) {
                const asset = `public/assets/${match[1] ?? match[2] ?? match[3]}`;
                if (loaded.has(asset)) continue;
                loaded.add(asset);
                if (asset.endsWith('.js') && tree.has(asset)) queue.push(asset);
              }
            }
            const selection = JSON.stringify(choices);
            expect([...loaded].filter((asset) => !tree.has(asset)), `loaded but not shipped with ${selection}`).toEqual([]);
            expect(shipped.filter((asset) => !loaded.has(asset)), `shipped but never loaded with ${selection}`).toEqual([]);
          }
        }
      }
    }
  });

  it('shows on the sign-in and account pages only the sections of the modules chosen', () => {
    const project = generateProject({ projectName: 'demo', choices: mergeChoices({ auth: ['magic-link'], toggles: { orgs: false } }, { pm: 'npm' }), registry: createRegistry(loadBuiltinModules()) });
    const file = (name: string) => project.tree.get(name)!;
    expect(file('public/index.html')).toContain('data-method="magic_link"');
    expect(file('public/index.html')).not.toMatch(/data-method="password"|data-method="oauth"/);
    expect(file('public/account.html')).not.toMatch(/password|two-factor|identities|organizations/i);
    expect(project.tree.has('public/assets/password-sign-in.js')).toBe(false);
  });
});
