import { describe, expect, it } from 'vitest';
import { mergeChoices, type PartialChoices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { createRegistry, loadBuiltinModules, loadReleaseModules, type ModuleRegistry } from '../../src/core/registry.js';
import { releaseProfile } from '../../src/core/release-profile.js';
import { threeWayMerge } from '../../src/core/three-way-merge.js';

const current = createRegistry(loadBuiltinModules());
const release40 = createRegistry(loadReleaseModules(releaseProfile('4.0')), [], releaseProfile('4.0'));

function appTs(registry: ModuleRegistry, choices: PartialChoices): string {
  return generateProject({ projectName: 'demo', choices: mergeChoices(choices, { pm: 'npm' }), registry }).tree.get('src/app.ts')!;
}

/** The README's "Add your own route": an import after the last import, a router just before the not-found handler. */
function followTheRecipe(text: string): string {
  const lines = text.split('\n');
  const lastImport = lines.length - 1 - [...lines].reverse().findIndex((line) => line.startsWith('import '));
  lines.splice(lastImport + 1, 0, "import { createNotesRoutes } from './modules/notes/notes.routes.js';");
  const notFound = lines.findIndex((line) => line.includes('app.use(notFoundHandler)'));
  lines.splice(notFound, 0, '  app.use(createNotesRoutes(context));');
  return lines.join('\n');
}

describe('three-way merge', () => {
  it("keeps the README recipe's route when add inserts its own import and router at the same two points", () => {
    const base = appTs(current, { auth: ['jwt'], toggles: { orgs: false, pages: false } });
    const next = appTs(current, { auth: ['jwt'], toggles: { orgs: true, pages: false } });
    const mine = followTheRecipe(base);
    const merged = threeWayMerge(mine, base, next);
    expect(merged.conflictLines).toEqual([]);
    // Both lines at each point: the user's first, then the module's.
    expect(merged.text).toContain(
      "import { createNotesRoutes } from './modules/notes/notes.routes.js';\nimport { createOrganizationRoutes } from './modules/organizations/organizations.routes.js';",
    );
    expect(merged.text).toContain(
      "  app.use(createNotesRoutes(context));\n  app.use(underPath('/api/organizations', createOrganizationRoutes(context)));\n  app.use(notFoundHandler);",
    );
  });

  it('keeps the recipe through the upgrade of src/app.ts from release 4.0 to this one', () => {
    for (const choices of [{ auth: ['jwt'], toggles: { orgs: false, pages: false } }, { auth: ['jwt', 'passkey'] }, { auth: ['magic-link'], toggles: { orgs: false } }] as PartialChoices[]) {
      const base = appTs(release40, { ...choices, templateVersion: '4.0' });
      const next = appTs(current, choices);
      const merged = threeWayMerge(followTheRecipe(base), base, next);
      expect(merged.conflictLines, JSON.stringify(choices)).toEqual([]);
      expect(merged.text).toBe(followTheRecipe(next));
    }
  });

  it('still calls two different changes of one line a conflict', () => {
    const merged = threeWayMerge('a\nmine\nc\n', 'a\nb\nc\n', 'a\ntheirs\nc\n');
    expect(merged.conflictLines).toEqual([2]);
    expect(merged.text).toBe('a\n<<<<<<< your version\nmine\n=======\ntheirs\n>>>>>>> create-gatekit add\nc\n');
  });

  it('keeps an insert beside a line the other side changed, and leaves a guess (the base region twice) a conflict', () => {
    expect(threeWayMerge('a\nb\nmine\nc\n', 'a\nb\nc\n', 'a\nB\nc\n').text).toBe('a\nB\nmine\nc\n');
    expect(threeWayMerge('a\nB\nc\n', 'a\nb\nc\n', 'a\nb\ntheirs\nc\n').text).toBe('a\nB\ntheirs\nc\n');
    expect(threeWayMerge('x\n}\nmine\n}\n', 'x\n}\n', 'x\nchanged }\n').conflictLines).toHaveLength(1);
  });
});
