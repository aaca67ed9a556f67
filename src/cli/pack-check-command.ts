import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mergeChoices, type Choices } from '../core/choices.js';
import { choicesSelecting, supportsDatabase } from '../core/choosable-modules.js';
import { ManifestError, StepError } from '../core/errors.js';
import { generateProject } from '../core/generate-project.js';
import type { LoadedModule } from '../core/manifest.js';
import { resolvePack } from '../core/packs.js';
import { createRegistry, loadBuiltinModules, loadPack, type ModuleRegistry } from '../core/registry.js';
import { CURRENT_RELEASE } from '../core/releases.js';
import { writeTree } from '../core/write-tree.js';
import type { Reporter } from './reporter.js';

export interface PackCheckFlags {
  writeMigrations?: boolean;
  typecheck?: boolean;
  postgresUrl?: string;
}

/**
 * The database drivers the schema engine reaches the sample databases with: create-gatekit's own
 * devDependencies, so a pack adds them to its own (the engine itself is a dependency of create-gatekit).
 */
export const ENGINE_PACKAGES = ['@prisma/adapter-better-sqlite3', 'better-sqlite3', '@prisma/adapter-pg', 'pg'];

const SAMPLE_DATABASES = ['sqlite', 'postgresql'] as const;

/** The smallest app that shows the modules: base, password sign-in, the modules, no other optional feature. */
function sampleChoices(registry: ModuleRegistry, modules: LoadedModule[], db: Choices['db']): Choices {
  const chosen = choicesSelecting(modules, registry, CURRENT_RELEASE);
  return mergeChoices({
    ...chosen,
    auth: ['jwt', ...chosen.auth.filter((id) => id !== 'jwt')],
    db,
    pm: 'npm',
    install: false,
    git: false,
  });
}

function renderSamples(registry: ModuleRegistry, modules: LoadedModule[], reporter: Reporter): void {
  for (const module of modules) {
    const databases = SAMPLE_DATABASES.filter((db) => supportsDatabase(module, db));
    if (databases.length === 0) throw new ManifestError(`Module '${module.manifest.id}' (${module.dir}) has a schema but no migrations/sqlite.sql or migrations/postgresql.sql.`);
    for (const db of databases) {
      const project = generateProject({ projectName: 'pack-sample', choices: sampleChoices(registry, [module], db), registry });
      const leftovers = project.tree.entries().filter(([file, content]) => file.endsWith('.ts') && content.includes('{{'));
      if (leftovers.length > 0) throw new ManifestError(`Rendering '${module.manifest.id}' left Handlebars syntax in ${leftovers.map(([file]) => file).join(', ')}.`);
    }
    reporter.success(`${module.manifest.id}: renders with base + jwt on ${databases.join(' and ')}`);
  }
}

async function checkMigrations(registry: ModuleRegistry, modules: LoadedModule[], flags: PackCheckFlags, reporter: Reporter): Promise<void> {
  const withSchema = modules.filter((module) => module.manifest.schema);
  if (withSchema.length === 0) {
    reporter.info('No module of the pack has tables; no migrations to check.');
    return;
  }
  let engine: typeof import('../core/module-migrations.js');
  try {
    engine = await import('../core/module-migrations.js');
  } catch (error) {
    throw new StepError(
      'migrations',
      `Prisma's schema engine could not be loaded (${(error as Error).message.split('\n')[0]}).`,
      `Add it to the pack's devDependencies: npm install --save-dev ${ENGINE_PACKAGES.join(' ')}`,
    );
  }
  const files = await engine.buildMigrations(registry, { only: withSchema, ...(flags.postgresUrl ? { postgresUrl: flags.postgresUrl } : {}) });
  const stale: string[] = [];
  for (const { file, sql } of files) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (current === sql) continue;
    if (flags.writeMigrations) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, sql);
      reporter.success(`${current === undefined ? 'created' : 'updated'} ${file}`);
    } else {
      stale.push(file);
    }
  }
  if (stale.length > 0) {
    throw new StepError('migrations', `These migrations are missing or differ from what Prisma's schema engine makes for the module's schema:\n  ${stale.join('\n  ')}`, 'create-gatekit pack check <dir> --write-migrations');
  }
  reporter.success(`Migrations of ${withSchema.map((module) => module.manifest.id).join(', ')} match Prisma's schema engine (sqlite, postgresql)`);
}

function npm(cwd: string, args: string[], step: string): string {
  const env = { ...process.env, NODE_ENV: '', NO_COLOR: '1', FORCE_COLOR: '0' };
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 900_000, shell: process.platform === 'win32' });
  if (result.status !== 0) {
    throw new StepError(step, `npm ${args.join(' ')} failed in the sample app ${cwd}:\n${`${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-30).join('\n')}`, `cd ${cwd} && npm ${args.join(' ')}`);
  }
  return result.stdout.replace(/\u001b\[[0-9;]*m/g, '');
}

/** Generates one app with every module of the pack, installs it, type-checks it and runs its own tests. */
function checkSampleApp(registry: ModuleRegistry, modules: LoadedModule[], reporter: Reporter): void {
  const root = mkdtempSync(path.join(tmpdir(), 'gatekit-pack-check-'));
  const dir = path.join(root, 'pack-sample');
  const project = generateProject({ projectName: 'pack-sample', choices: sampleChoices(registry, modules, 'sqlite'), registry });
  writeTree(dir, project.tree);
  reporter.info(`… Installing a sample app with ${modules.map((module) => module.manifest.id).join(', ')} in ${dir}`);
  npm(dir, ['install', '--no-audit', '--no-fund', '--prefer-offline'], 'install');
  npm(dir, ['run', 'typecheck'], 'typecheck');
  reporter.success('The sample app type-checks (tsc --noEmit, strict)');
  npm(dir, ['run', 'db:migrate'], 'migrate');
  const tests = npm(dir, ['test'], 'test');
  reporter.success(`The sample app's own tests pass (${/Tests\s+(\d+ passed)/.exec(tests)?.[1] ?? 'npm test'})`);
  rmSync(root, { recursive: true, force: true });
}

/** `create-gatekit pack check <dir>`: what a pack author runs before publishing. */
export async function runPackCheck(dir: string, flags: PackCheckFlags, reporter: Reporter): Promise<void> {
  const pack = resolvePack(dir, [process.cwd()]);
  const modules = loadPack(pack);
  const registry = createRegistry([...loadBuiltinModules(), ...modules], [pack.ref]);
  reporter.success(`${pack.ref.name ?? dir}${pack.ref.version ? `@${pack.ref.version}` : ''}: ${modules.length} valid module manifest(s): ${modules.map((module) => `${module.manifest.id} (${module.manifest.category})`).join(', ')}`);
  renderSamples(registry, modules, reporter);
  await checkMigrations(registry, modules, flags, reporter);
  if (flags.typecheck === false) reporter.info('Skipped the sample app (--no-typecheck).');
  else checkSampleApp(registry, modules, reporter);
  reporter.success('The pack is ready to publish.');
}
