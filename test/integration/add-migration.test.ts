import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addMigration } from '../../src/core/add-migration.js';
import { mergeChoices, type PartialChoices } from '../../src/core/choices.js';
import { generateProject } from '../../src/core/generate-project.js';
import { createRegistry, loadBuiltinModules } from '../../src/core/registry.js';
import { createTempPgSchema, diffSchemas, openSchemaEngine, type TempPgSchema } from '../helpers/schema-engine.js';

type Db = 'sqlite' | 'postgresql';

const registry = createRegistry(loadBuiltinModules());
const sqliteDir = mkdtempSync(path.join(tmpdir(), 'gatekit-add-migration-'));
const pgSchemas: TempPgSchema[] = [];
afterAll(async () => {
  rmSync(sqliteDir, { recursive: true, force: true });
  for (const schema of pgSchemas) await schema.drop();
});

function render(db: Db, choices: PartialChoices) {
  const project = generateProject({ projectName: 'app', choices: mergeChoices({ auth: ['jwt'], toggles: { orgs: false, pages: false }, db }, choices, { pm: 'npm' }), registry, now: new Date('2026-01-01T00:00:00Z') });
  return { modules: project.modules, schema: Object.fromEntries(project.tree.entries())['prisma/schema.prisma']! };
}

describe('the migration of an add of several modules', () => {
  for (const db of ['sqlite', 'postgresql'] as const) {
    it(`is the schema engine's own diff from the schema before to the schema after (${db})`, async () => {
      const before = render(db, {});
      const after = render(db, { auth: ['jwt', 'magic-link'], oauth: ['github'], hosted: ['totp'], toggles: { orgs: true, pages: true } });
      const had = new Set(before.modules.map((module) => module.manifest.id));
      const added = after.modules.filter((module) => !had.has(module.manifest.id));
      expect(added.map((module) => module.manifest.id)).toEqual(expect.arrayContaining(['magic-link', 'identities', 'oauth', 'github', 'totp', 'orgs']));

      const ours = addMigration(path.join(sqliteDir, 'no-app'), added, db, new Date())!.sql;
      let url = `file:${path.join(sqliteDir, 'scratch.db')}`;
      if (db === 'postgresql') {
        const schema = await createTempPgSchema();
        pgSchemas.push(schema);
        url = schema.url;
      }
      const engine = await openSchemaEngine(db, url, before.schema);
      try {
        expect(ours.trim()).toBe((await diffSchemas(engine, before.schema, after.schema)).trim());
      } finally {
        await engine.close();
      }
    });
  }
});
