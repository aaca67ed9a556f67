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
