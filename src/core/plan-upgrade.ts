import path from 'node:path';
import { nextMigrationStamp } from './add-migration.js';
import { appFileReader } from './app-files.js';
import { choicesOf, METADATA_FILE, projectNameOf, readAppMetadata, type AppMetadata } from './app-metadata.js';
import type { Choices } from './choices.js';
import { flaggedModules } from './choosable-modules.js';
import { UsageError } from './errors.js';
import { generateProject, type GeneratedProject } from './generate-project.js';
import { contentHash, isTracked } from './generated-files.js';
import { refuseLinksOutside } from './links.js';
import { appendMissingEnv, envValuesIn } from './merge-env.js';
import { type FileChange, planRenderedFiles, PROPOSAL_SUFFIX } from './plan-add.js';
import { createRegistry, loadReleaseModules, type ModuleRegistry } from './registry.js';
import { FROZEN_RELEASES, releaseProfile } from './release-profile.js';
import { compareTags, compareVersions, CURRENT_RELEASE, releaseOfApp } from './releases.js';
import { dataSteps, diffAppSchemas, upgradeMigrationFile, upgradeMigrationSql } from './upgrade-migration.js';
import { GENERATOR_VERSION } from './version.js';

const SCHEMA_FILE = 'prisma/schema.prisma';

export interface UpgradeMigration {
  file: string;
  /** Written beside the file (`.gatekit-new`) when prisma/schema.prisma conflicts: the owner checks it first. */
  proposed: boolean;
  /** Whether the schema changes (the engine's SQL), and the data steps after it ("4.1 base"). */
  schemaChange: boolean;
  dataSteps: string[];
}

export interface UpgradePlan {
  appDir: string;
  metadata: AppMetadata;
  /** The release that made the app, and this generator's. */
  from: string;
  to: string;
  /** The app is at this release already: nothing to do. */
  upToDate: boolean;
  /** Every file the upgrade adds, rewrites, merges, removes or leaves conflicting. */
  changes: FileChange[];
  /** Variables appended to .env (values not shown: some are secrets). */
  envAdded: string[];
  migration?: UpgradeMigration;
  /** Modules the new release brings by itself (internal companions of chosen ones). */
  gained: string[];
}

export interface PlanUpgradeInput {
  appDir: string;
  /** This release's modules and the packs (given, or recorded in gatekit.json). */
  registry: ModuleRegistry;
  now?: Date;
  /** Read before .env: what the app's scripts see (process.loadEnvFile leaves a set variable alone). */
  env?: NodeJS.ProcessEnv;
  /** Runs once the app is known to need an upgrade, before anything is rendered (the CLI's git check). */
  beforeRender?: () => void;
}

/** Refuses what upgrade cannot do: going back, and releases this generator cannot render. */
function checkDirection(metadata: AppMetadata, from: string): void {
  const made = metadata.generator.version;
  if (compareTags(from, CURRENT_RELEASE) > 0 || (from === CURRENT_RELEASE && compareVersions(made, GENERATOR_VERSION) > 0)) {
    throw new UsageError(
      `This app was made by create-gatekit ${made} (release ${from}), which is newer than this one (${GENERATOR_VERSION}, release ${CURRENT_RELEASE}): upgrade never goes back. Use create-gatekit ${made} or later with this app (npx create-gatekit@${made} upgrade). Nothing was written.`,
    );
  }
  const oldest = FROZEN_RELEASES[0];
  if (compareTags(from, oldest) < 0) {
    throw new UsageError(
      `upgrade brings apps made by release ${oldest} or later to ${CURRENT_RELEASE}; this app was made by create-gatekit ${made} (release ${from}), which this generator cannot render again to merge with. ` +
        `Keep adding modules with the version that made it (npx create-gatekit@${made} add <module>), or generate a new app with this release and move your code over. Nothing was written.`,
    );
  }
}

/**
 * The same choices at this release: every module the app has, and every feature module with its
 * own flag that the app does not have switched off, so a release's new default-on module does not
 * join an app that never chose it.
 */
function upgradedChoices(before: Choices, registry: ModuleRegistry): Choices {
  const toggles = { ...before.toggles };
  for (const module of flaggedModules(registry, CURRENT_RELEASE)) toggles[module.manifest.id] ??= false;
  return { ...before, templateVersion: CURRENT_RELEASE, toggles };
}

/** A file the new release no longer writes: removed when the user never changed it, else left to the user. */
function planRemoval(file: string, user: string | undefined, base: string, metadata: AppMetadata): FileChange | undefined {
  if (user === undefined) return undefined;
  const recorded = metadata.files?.[file];
  const untouched = metadata.files ? recorded !== undefined && contentHash(user) === recorded : user === base;
  if (untouched) return { file, kind: 'removed', content: '' };
  return {
    file,
    kind: 'conflict',
    content: user,
    action: `release ${CURRENT_RELEASE} no longer has ${file}, which you edited: it stays as it is; delete it once nothing of yours uses it`,
  };
}

/**
 * Plans `upgrade` without writing anything: renders the app as its release made it and as this
 * release makes it (same project name, choices and packs), compares both with the app's files, and
 * computes the one migration. See docs/upgrade.md.
 */
export async function planUpgrade(input: PlanUpgradeInput): Promise<UpgradePlan> {
  const appDir = path.resolve(input.appDir);
  // Every file of the app is read through this: regular files inside the app only.
  const read = appFileReader(appDir);
  const metadata = readAppMetadata(appDir, read, 'upgrade');
  const from = releaseOfApp(metadata);
  checkDirection(metadata, from);
  const plan: UpgradePlan = { appDir, metadata, from, to: CURRENT_RELEASE, upToDate: from === CURRENT_RELEASE, changes: [], envAdded: [], gained: [] };
  if (plan.upToDate) return plan;
  input.beforeRender?.();

  const now = input.now ?? new Date();
  const profile = releaseProfile(from);
  const packModules = [...input.registry.modules.values()].filter((module) => module.source !== 'built-in');
  const oldRegistry = createRegistry([...loadReleaseModules(profile), ...packModules], input.registry.packs, profile);
  const before = choicesOf(metadata, oldRegistry);
  choicesOf(metadata, input.registry); // every module of the app still exists
  const projectName = projectNameOf(metadata);
  const render = (choices: Choices, registry: ModuleRegistry): GeneratedProject => generateProject({ projectName, directory: appDir, choices, registry, now });
  const old = render(before, oldRegistry);
  const next = render(upgradedChoices(before, input.registry), input.registry);
  const oldIds = new Set(old.modules.map((module) => module.manifest.id));
  const lost = [...oldIds].filter((id) => !next.modules.some((module) => module.manifest.id === id));
  if (lost.length > 0) throw new Error(`Release ${CURRENT_RELEASE} would leave out module(s) ${lost.join(', ')} of the app; upgrade keeps every module.`);
  plan.gained = next.modules.map((module) => module.manifest.id).filter((id) => !oldIds.has(id));

  // Before reading the user's files, the files the upgrade changes: a link out of the app comes first.
  const touched = [...new Set([...next.tree.paths(), ...old.tree.paths()])].filter((file) => next.tree.get(file) !== old.tree.get(file));
  refuseLinksOutside(appDir, touched, 'create-gatekit upgrade');

  plan.changes.push(...planRenderedFiles(read, metadata, old, next, 'upgrade'));
  for (const [file, content] of old.tree.entries()) {
    if (!isTracked(file) || next.tree.has(file)) continue;
    const change = planRemoval(file, read(file), content, metadata);
    if (change) plan.changes.push(change);
  }

  const currentEnv = read('.env');
  const env = appendMissingEnv(currentEnv, next.modules, metadata.database);
  if (env) {
    plan.changes.push({ file: '.env', kind: env.kind, content: env.content });
    plan.envAdded = env.names;
  }

  const migration = await planMigration({ appDir, metadata, old, next, changes: plan.changes, userSchema: read(SCHEMA_FILE), now, from, env: input.env ?? process.env, currentEnv });
  if (migration) {
    plan.migration = migration.migration;
    plan.changes.push(migration.change);
  }

  plan.changes.push({ file: METADATA_FILE, kind: 'rewritten', content: next.tree.get(METADATA_FILE)! });
  // Refused while planning, so --dry-run refuses exactly what the real run would.
  refuseLinksOutside(appDir, plan.changes.map((change) => change.proposalFile ?? change.file), 'create-gatekit upgrade');
  return plan;
}

/**
 * The upgrade's migration: from the app's schema as it is to the schema the upgrade leaves (so the
 * owner's own models and columns are never touched), then the data steps. When the schema file
 * conflicts, the release's own change (old render to new) is proposed beside the file instead.
 */
async function planMigration(options: {
  appDir: string;
  metadata: AppMetadata;
  old: GeneratedProject;
  next: GeneratedProject;
  changes: FileChange[];
  userSchema: string | undefined;
  now: Date;
  from: string;
  env: NodeJS.ProcessEnv;
  currentEnv: string | undefined;
}): Promise<{ migration: UpgradeMigration; change: FileChange } | undefined> {
  const { metadata, old, next, changes, userSchema } = options;
  const db = metadata.database;
  const schemaChange = changes.find((change) => change.file === SCHEMA_FILE);
  const proposed = userSchema === undefined || schemaChange?.kind === 'conflict';
  const fromSchema = proposed ? old.tree.get(SCHEMA_FILE)! : userSchema;
  const toSchema = proposed ? next.tree.get(SCHEMA_FILE)! : (schemaChange?.content ?? userSchema);
  const databaseUrl = options.env.DATABASE_URL || envValuesIn(options.currentEnv ?? '').DATABASE_URL;
  const sql = fromSchema === toSchema ? '' : await diffAppSchemas({ appDir: options.appDir, db, fromSchema, toSchema, ...(databaseUrl ? { databaseUrl } : {}) });
  const steps = dataSteps(next.modules, options.from, CURRENT_RELEASE, db);
  const text = upgradeMigrationSql(sql, steps, db);
  if (text === undefined) return undefined;
  const file = upgradeMigrationFile(nextMigrationStamp(options.appDir, options.now), options.from, CURRENT_RELEASE);
  const migration: UpgradeMigration = { file, proposed, schemaChange: sql !== '', dataSteps: steps.map((step) => `${step.release} ${step.module}`) };
  if (!proposed) return { migration, change: { file, kind: 'added', content: text } };
  const proposalFile = `${file}${PROPOSAL_SUFFIX}`;
  return {
    migration,
    change: {
      file,
      kind: 'conflict',
      content: text,
      proposalFile,
      action: `${SCHEMA_FILE} conflicts, so the migration is only proposed: it holds release ${CURRENT_RELEASE}'s own schema change and data steps. Resolve ${SCHEMA_FILE}, check ${proposalFile} against your own models, then rename it to migration.sql (npm run db:migrate refuses the folder until then)`,
    },
  };
}
