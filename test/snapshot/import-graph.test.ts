import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateProject } from '../../src/core/generate-project.js';
import { resolvePack } from '../../src/core/packs.js';
import { createRegistry, loadBuiltinModules, loadPack } from '../../src/core/registry.js';
import { fixtureChoices, fixtureNames, renderFixture } from '../helpers/fixtures.js';
import { circleThrough, type ImportGraph, importGraph, tangles, upwardImports } from '../helpers/import-graph.js';
import { ROOT } from '../helpers/run-cli.js';

// The structure of every generated app (docs/architecture.md, "The generated app's layers"): the
// files that list modules (config.ts, account-hooks.ts, deferred-steps.ts, provider-list.ts,
// app.ts) import the modules, and nothing they import imports them back. Types count (`import
// type`): a circle of types tangles the structure as much as one of values, and is where a circle
// of values starts.

function circles(graph: ImportGraph): string[] {
  return tangles(graph).map(
    (files) =>
      `${files.length} files in a circle, for instance ${circleThrough(graph, files[0]!).join(' -> ')}:\n    ${files.join('\n    ')}`,
  );
}

function expectLayered(graph: ImportGraph): void {
  expect(graph.size).toBeGreaterThan(20);
  const found = circles(graph);
  expect(found.length, `import circles:\n  ${found.join('\n  ')}\n`).toBe(0);
  const upward = upwardImports(graph);
  expect(upward.length, `imports from a lower layer up to a higher one:\n  ${upward.join('\n  ')}\n`).toBe(0);
}

describe('the import graph of each fixture (src/ and test/)', () => {
  for (const name of fixtureNames()) {
    it(`${name} has no import circle and no import from a lower layer up to a higher one`, () => {
      expectLayered(importGraph(renderFixture(name).tree.entries()));
    });
  }

  it('so has the full fixture with the example packs (keycloak, audit-log), which follow the rule they teach', () => {
    const packs = ['keycloak', 'audit-log'].map((name) => resolvePack(path.join(ROOT, 'examples/packs', name), [ROOT]));
    const { tree } = generateProject({
      projectName: 'fixture-full-packs',
      choices: { ...fixtureChoices('full'), modules: ['audit-log'] },
      registry: createRegistry(
        [...loadBuiltinModules(), ...packs.flatMap(loadPack)],
        packs.map((pack) => pack.ref),
      ),
      now: new Date('2026-01-01T00:00:00Z'),
    });
    expect(tree.has('src/modules/auth/oauth/providers/keycloak.ts')).toBe(true);
    expect(tree.has('src/modules/audit-log/record-sign-in.ts')).toBe(true);
    expectLayered(importGraph(tree.entries()));
  });
});

describe('the import graph reader', () => {
  const graphOf = (files: Record<string, string>) => importGraph(Object.entries(files));

  it('follows import, import type, export from and import(), resolving .js to the .ts beside it', () => {
    const graph = graphOf({
      'src/a.ts':
        "import { b } from './b.js';\nimport type { C } from './c/c.js';\nexport { d } from '../src/d.js';\nconst e = await import('./e.js');",
      'src/b.ts': "import { z } from 'zod';\nimport type { User } from './generated/prisma/client.js';",
      'src/c/c.ts': '',
      'src/d.ts': '',
      'src/e.ts': '',
      'README.md': "import { a } from './src/a.js';",
    });
    expect(Object.fromEntries(graph)).toEqual({
      'src/a.ts': ['src/b.ts', 'src/c/c.ts', 'src/d.ts', 'src/e.ts'],
      'src/b.ts': [],
      'src/c/c.ts': [],
      'src/d.ts': [],
      'src/e.ts': [],
    });
  });

  it('finds a circle of types and names its path', () => {
    const graph = graphOf({
      'src/list.ts': "import { part } from './part.js';\nexport type Db = object;",
      'src/part.ts': "import type { Db } from './list.js';",
      'src/other.ts': "import { part } from './part.js';",
    });
    expect(tangles(graph)).toEqual([['src/list.ts', 'src/part.ts']]);
    expect(circleThrough(graph, 'src/list.ts')).toEqual(['src/list.ts', 'src/part.ts', 'src/list.ts']);
  });

  it('reports an import from shared code up into a module', () => {
    const graph = graphOf({
      'src/config.ts': "import { fragment } from './modules/a/a.config.js';",
      'src/modules/a/a.config.ts': '',
      'src/mail/text.ts': "import { name } from '../modules/a/name.js';",
      'src/modules/a/name.ts': "import type { Config } from '../../config.js';",
    });
    expect(upwardImports(graph)).toEqual(['src/mail/text.ts (shared) -> src/modules/a/name.ts (modules)']);
  });
});
