import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createTempPgSchema, findDrift, type TempPgSchema } from '../helpers/schema-engine.js';
import { expectEveryTestPassed } from '../helpers/vitest-summary.js';

function sourceFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const relative = path.relative(root, full);
    if (['node_modules', 'dist', '.git'].includes(name) || relative === path.join('src', 'generated')) return [];
    return statSync(full).isDirectory() ? sourceFiles(full, root) : [full];
  });
}

/** Package name of a bare import specifier, or undefined for relative and node: imports. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g;

export interface ProjectCheckSetup {
  fixture: () => PreparedFixture;
  db: 'sqlite' | 'postgresql';
  databaseUrl: () => string;
}

/** What every generated project must be: compiles, tests pass, declares what it imports, no leftovers, no drift. */
export function projectChecks(setup: ProjectCheckSetup): void {
  it('type-checks in strict mode (tsc --noEmit)', () => {
    expect(setup.fixture().run('typecheck')).toContain('tsc --noEmit');
  }, 180_000);

  it('lints clean with its own installed linter (npm run lint)', () => {
    // run() throws with the linter's report when it exits non-zero (any error it finds).
    expect(setup.fixture().run('lint')).toContain('biome lint');
  }, 120_000);

  it("passes its own test suite (npm test)", () => {
    const output = setup.fixture().run('test');
    expectEveryTestPassed(output);
  }, 300_000);

  it('declares every package it imports, and imports every runtime package it declares', () => {
    const { dir } = setup.fixture();
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]);
    const imported = new Set<string>();
    for (const file of sourceFiles(dir).filter((candidate) => /\.(ts|mts|mjs|js)$/.test(candidate))) {
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const name = packageOf(match[1] ?? match[2] ?? match[3]!);
        if (!name) continue;
        imported.add(name);
        expect(declared.has(name), `${path.relative(dir, file)} imports ${name}`).toBe(true);
      }
    }
    // The Prisma client generated into src/generated imports @prisma/client at run time.
    imported.add('@prisma/client');
    for (const name of Object.keys(pkg.dependencies)) expect(imported.has(name), `dependency ${name} is never imported`).toBe(true);
    const scripts = Object.values(pkg.scripts).join(' ');
    // Packages whose command has another name than the package.
    const commands: Record<string, string> = { '@biomejs/biome': 'biome ' };
    for (const name of Object.keys(pkg.devDependencies)) {
      const used = imported.has(name) || (name.startsWith('@types/') && (imported.has(name.slice(7)) || name === '@types/node')) || (name === 'typescript' && scripts.includes('tsc')) || scripts.includes(commands[name] ?? name);
      expect(used, `devDependency ${name} is never used`).toBe(true);
    }
  });

  it('documents in .env.example every variable it reads', () => {
    const { dir } = setup.fixture();
    const documented = new Set([...readFileSync(path.join(dir, '.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));
    const read = new Set<string>();
    for (const file of sourceFiles(path.join(dir, 'src')).concat(sourceFiles(path.join(dir, 'test')), sourceFiles(path.join(dir, 'scripts')))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) read.add(match[1]!);
      // Config shapes merged into src/config.ts: `NAME: z.…`, `NAME: endpoint(…)`, `NAME: optional…`, and
      // the OAuth helper clientSettings('P'), which declares P_CLIENT_ID, P_CLIENT_SECRET and P_CALLBACK_URL.
      for (const match of text.matchAll(/^\s+([A-Z][A-Z0-9_]*): (?:z\.|endpoint\(|optional)/gm)) read.add(match[1]!);
      for (const match of text.matchAll(/clientSettings\('([A-Z][A-Z0-9_]*)'\)/g)) {
        for (const suffix of ['CLIENT_ID', 'CLIENT_SECRET', 'CALLBACK_URL']) read.add(`${match[1]}_${suffix}`);
      }
    }
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(documented.has(name), `${name} is read but not in .env.example`).toBe(true);
  });

  it('contains no template leftovers', () => {
    const { dir } = setup.fixture();
    // SQLite files of the suites running beside this one (WAL mode adds -wal and -shm files).
    for (const file of sourceFiles(dir).filter((candidate) => !/\.db(-wal|-shm|-journal)?$/.test(candidate))) {
      const text = readFileSync(file, 'utf8');
      const name = path.relative(dir, file);
      expect(text, name).not.toMatch(/\{\{|\}\}/);
      expect(text, name).not.toMatch(/\n\s*\n\s*\n/);
      expect(text, name).not.toMatch(/[ \t]+\n/);
      if (name.endsWith('.ts')) expect(text, name).not.toMatch(/^\s*(import|export) \{\s*\} from/m);
    }
  });

  it("its committed migrations produce exactly its Prisma schema (Prisma's schema engine)", async () => {
    const { dir } = setup.fixture();
    const schema = readFileSync(path.join(dir, 'prisma/schema.prisma'), 'utf8');
    const url = setup.db === 'sqlite' ? `file:${path.join(dir, 'dev.db')}` : setup.databaseUrl();
    expect(await findDrift({ db: setup.db, url, schema })).toBe('');
  });
}

/**
 * Prepares a SQLite fixture (generate, install, build, migrate dev.db; shared with other test
 * files of the run) before the tests of the enclosing describe, runs the project checks on it,
 * and returns a getter for it.
 */
export function sqliteFixtureWithChecks(name: string): () => PreparedFixture {
  let fixture: PreparedFixture;
  beforeAll(async () => {
    fixture = await sharedFixture(name);
  });
  describe('the generated project', () => {
    projectChecks({ fixture: () => fixture, db: 'sqlite', databaseUrl: () => `file:${path.join(fixture.dir, 'dev.db')}` });
  });
  return () => fixture;
}

/**
 * Prepares a PostgreSQL fixture (generate, install, build; shared with other test files of the
 * run) and migrates a throwaway schema for it before the tests of the enclosing describe, runs the
 * project checks on it, drops the schema afterwards, and returns getters for the fixture and its
 * database URL.
 */
export function postgresFixtureWithChecks(name: string): { fixture: () => PreparedFixture; databaseUrl: () => string } {
  let fixture: PreparedFixture;
  let database: TempPgSchema;
  beforeAll(async () => {
    database = await createTempPgSchema();
    // Shared with other test files of the run (production-postgresql uses orgs-postgresql too);
    // whoever prepared it migrated its own schema, so this one migrates its own.
    fixture = await sharedFixture(name, database.url);
    fixture.run('db:migrate');
  });
  afterAll(async () => {
    await database?.drop();
  });
  const databaseUrl = () => database.url;
  describe('the generated project', () => {
    projectChecks({ fixture: () => fixture, db: 'postgresql', databaseUrl });
  });
  return { fixture: () => fixture, databaseUrl };
}
