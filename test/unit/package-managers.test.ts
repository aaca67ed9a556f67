import { describe, expect, it } from 'vitest';
import { mergeChoices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { installArgs, packageManagerFiles } from '../../src/core/package-managers.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';

const registry = createRegistry(loadBuiltinModules());
const generate = (pm: 'npm' | 'pnpm' | 'yarn' | 'bun', db: 'sqlite' | 'postgresql' = 'sqlite') =>
  generateProject({ projectName: 'demo', choices: mergeChoices({ pm, db, toggles: { orgs: false, pages: false } }), registry }).tree;

describe("each package manager's own files", () => {
  it('pnpm: pnpm-workspace.yaml approves the install scripts the app needs and forces the same versions as npm', () => {
    const tree = generate('pnpm');
    expect(tree.get('pnpm-workspace.yaml')).toBe(
      [
        '# Dependencies whose install scripts pnpm may run; pnpm runs no others.',
        'allowBuilds:',
        "  '@prisma/engines': true",
        '  bcrypt: true',
        '  esbuild: true',
        '  prisma: true',
        '',
        'overrides:',
        "  '@libsql/client': '^0.18.0'",
        "  vite: '~8.3.8'",
        '',
      ].join('\n'),
    );
    expect(JSON.parse(tree.get('package.json')!).pnpm).toBeUndefined();
    expect(tree.has('.yarnrc.yml') || tree.has('.yarnrc')).toBe(false);
  });

  it('pnpm on PostgreSQL: only the overrides the app needs there (no libSQL client)', () => {
    const yaml = generate('pnpm', 'postgresql').get('pnpm-workspace.yaml')!;
    expect(yaml).toContain('allowBuilds:');
    expect(yaml).toContain("overrides:\n  vite: '~8.3.8'\n");
    expect(yaml).not.toContain('@libsql/client');
  });

  it('yarn: .yarnrc.yml picks the node_modules linker, and the install state is not committed', () => {
    const tree = generate('yarn');
    expect(tree.get('.yarnrc.yml')).toMatch(/^nodeLinker: node-modules$/m);
    // yarn 1 reads .yarnrc only: it warns about engines, as npm does, instead of refusing Prisma 7 on Node 20 (issue 31).
    expect(tree.get('.yarnrc')).toMatch(/^ignore-engines true$/m);
    expect(tree.get('.gitignore')!.split('\n')).toContain('.yarn/install-state.gz');
    expect(JSON.parse(tree.get('package.json')!).resolutions).toEqual({ '@libsql/client': '^0.18.0', vite: '~8.3.8' });
    expect(tree.has('pnpm-workspace.yaml')).toBe(false);
  });

  it('npm and bun: package.json overrides only, no other file', () => {
    for (const pm of ['npm', 'bun'] as const) {
      const tree = generate(pm);
      expect(tree.has('pnpm-workspace.yaml') || tree.has('.yarnrc.yml') || tree.has('.yarnrc')).toBe(false);
      expect(tree.get('.gitignore')).not.toContain('.yarn');
      expect(JSON.parse(tree.get('package.json')!).overrides).toEqual({ '@libsql/client': '^0.18.0', vite: '~8.3.8' });
    }
  });

  it('quotes YAML keys and values that are not plain words', () => {
    const [[, yaml]] = packageManagerFiles('pnpm', ['prisma'], { "it's": '>=1 <2' }) as [[string, string]];
    expect(yaml).toContain("  '@prisma/engines': true\n");
    expect(yaml).toContain("  'it''s': '>=1 <2'\n");
  });
});

describe('the install command', () => {
  it('lets the first install write the lockfile with CI set (pnpm frozen, yarn 2+ immutable by default there)', () => {
    expect(installArgs('npm')).toEqual(['install']);
    expect(installArgs('bun')).toEqual(['install']);
    expect(installArgs('pnpm')).toEqual(['install', '--no-frozen-lockfile']);
  });
});
