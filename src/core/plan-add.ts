import path from 'node:path';
import { appFileReader, type AppFileReader } from './app-files.js';
import { choicesOf, METADATA_FILE, projectNameOf, readAppMetadata, type AppMetadata } from './app-metadata.js';
import type { Choices } from './choices.js';
import { chooseModule, choosableModules, isChoosable } from './choosable-modules.js';
import { developmentApiUrl } from './compose-env.js';
import { appendMissingEnv, envValuesIn, resolveEnvRegion } from './merge-env.js';
import { addMigration } from './add-migration.js';
import { LOCKFILES } from './apply-changes.js';
import { UsageError } from './errors.js';
import { generateProject, type GeneratedProject } from './generate-project.js';
import { contentHash, isTracked } from './generated-files.js';
import type { LoadedModule } from './manifest.js';
import { mergePackageJson } from './merge-package-json.js';
import { setupNotes } from './next-steps.js';
import { refuseLinksOutside } from './links.js';
import type { ModuleRegistry } from './registry.js';
import { FROZEN_RELEASES } from './release-profile.js';
import { compareTags, CURRENT_RELEASE, isAvailableAt, releaseOfApp } from './releases.js';
import { didYouMean } from './suggest.js';
import { GENERATOR_VERSION } from './version.js';
import { threeWayMerge } from './three-way-merge.js';

/**
 * What `add` (or `upgrade`) does to one file:
 * - added: a new file;
 * - rewritten: a file the user never changed, replaced by the new render;
 * - merged: a file the user edited, merged cleanly with the new render;
 * - removed: a file the new render no longer has (`upgrade`), which the user never changed;
 * - conflict: the user's file stays as it is; the proposal, if any, is written beside it.
 */
export type ChangeKind = 'added' | 'rewritten' | 'merged' | 'removed' | 'conflict';

export interface FileChange {
  file: string;
  kind: ChangeKind;
  /** What is written: at `file`, or for a conflict at `proposalFile` (a conflict without one writes nothing). */
  content: string;
  proposalFile?: string;
  /** For a conflict: the one thing the user must do. */
  action?: string;
}

/** The writes of a plan: each file's new content, null for a file to remove. */
export function writesOf(changes: FileChange[]): [string, string | null][] {
  return changes.flatMap((change): [string, string | null][] => {
    if (change.kind === 'removed') return [[change.file, null]];
    if (change.kind === 'conflict') return change.proposalFile ? [[change.proposalFile, change.content]] : [];
    return [[change.file, change.content]];
  });
}

export interface AddPlan {
  appDir: string;
  metadata: AppMetadata;
  choices: Choices;
  /** Every module the app gains: those asked for and what they require. */
  added: LoadedModule[];
  /** The ids asked for that the app did not have yet. */
  requested: string[];
  /** The ids asked for that the app already has (left as they are). */
  alreadyThere: string[];
  changes: FileChange[];
  /** Variables appended to .env (values not shown: some are secrets). */
  envAdded: string[];
  migration?: { file: string; modules: string[] };
  /** The notes of the added modules (the commands depend on whether the add installs). */
  notes: string[];
}

export const PROPOSAL_SUFFIX = '.gatekit-new';

/** Modules `add` may offer for this app: chosen like built-ins, not internal, at its release and database. */
export function addableModules(registry: ModuleRegistry, metadata: AppMetadata): LoadedModule[] {
  const present = new Set(metadata.modules.map((module) => module.id));
  return choosableModules(registry, { templateVersion: metadata.templateVersion, db: metadata.database }).filter((module) => !present.has(module.manifest.id));
}

/** The app's choices with `ids` added, each to its category. */
function withModules(choices: Choices, ids: string[], registry: ModuleRegistry, metadata: AppMetadata): Choices {
  const present = new Set(metadata.modules.map((module) => module.id));
  const offered = addableModules(registry, metadata).map((module) => module.manifest.id);
  const next: Choices = { ...choices, auth: [...choices.auth], oauth: [...choices.oauth], hosted: [...choices.hosted], modules: [...choices.modules], toggles: { ...choices.toggles } };
  const fresh = ids.filter((id) => !present.has(id));
  if (fresh.length === 0) {
    throw new UsageError(`${ids.join(', ')} ${ids.length === 1 ? 'is' : 'are'} already in this app. Modules it can add: ${offered.join(', ') || 'none'}.`);
  }
  for (const id of fresh) {
    const module = registry.modules.get(id);
    if (!module || !isChoosable(module)) {
      throw new UsageError(`Unknown module '${id}'. ${didYouMean(id, offered)}Modules this app can add: ${offered.join(', ') || 'none'}.`);
    }
    if (!isAvailableAt(module.manifest.tag, metadata.templateVersion)) {
      throw new UsageError(
        `'${id}' first shipped in release ${module.manifest.tag}, but this app was made with template version ${metadata.templateVersion}. Modules it can add: ${offered.join(', ') || 'none'}.`,
      );
    }
    chooseModule(next, module);
  }
  return next;
}

/**
 * Decides what happens to one generated file, from its last render (`base`), the user's copy and the
 * new render. `theirs` names the command in conflict markers and actions (`add`, `upgrade`).
 */
export function planFile(
  file: string,
  user: string | undefined,
  base: string | undefined,
  next: string,
  recordedHash: string | undefined,
  hashesRecorded: boolean,
  command: 'add' | 'upgrade' = 'add',
): FileChange | undefined {
  if (user === next || base === next) return undefined;
  const proposalFile = `${file}${PROPOSAL_SUFFIX}`;
  if (user === undefined) {
    if (base === undefined) return { file, kind: 'added', content: next };
    return { file, kind: 'conflict', content: next, proposalFile, action: `you deleted ${file}; the new version is ${proposalFile}: restore it as ${file} or delete it` };
  }
  const userUnchanged = hashesRecorded ? recordedHash !== undefined && contentHash(user) === recordedHash : user === base;
  if (userUnchanged) return { file, kind: 'rewritten', content: next };
  const baseKnown = base !== undefined && (!hashesRecorded || (recordedHash !== undefined && contentHash(base) === recordedHash));
  if (!baseKnown) {
    return { file, kind: 'conflict', content: next, proposalFile, action: `compare ${file} with ${proposalFile} (the version this ${command} makes) and copy what you need into ${file}` };
  }
  // .env.example is merged variable by variable where lines conflict (merge-env.ts).
  const merge = threeWayMerge(user, base!, next, { theirs: `create-gatekit ${command}`, ...(file === '.env.example' ? { resolve: resolveEnvRegion } : {}) });
  if (merge.conflictLines.length === 0) return { file, kind: 'merged', content: merge.text };
  return {
    file,
    kind: 'conflict',
    content: merge.text,
    proposalFile,
    action: `resolve the conflict markers at line ${merge.conflictLines.join(', ')} of ${proposalFile}, then move it over ${file}`,
  };
}

/**
 * What happens to each file of the new render, from the old render and the user's copy:
 * package.json merged by meaning, every other tracked file by planFile.
 */
export function planRenderedFiles(read: AppFileReader, metadata: AppMetadata, old: GeneratedProject, next: GeneratedProject, command: 'add' | 'upgrade'): FileChange[] {
  const changes: FileChange[] = [];
  const hashesRecorded = metadata.files !== undefined;
  for (const [file, content] of next.tree.entries()) {
    if (!isTracked(file)) continue;
    const user = read(file);
    const base = old.tree.get(file);
    const change =
      file === 'package.json' && base !== undefined
        ? mergePackageJson(user, base, content)
        : planFile(file, user, base, content, metadata.files?.[file], hashesRecorded, command);
    if (change) changes.push(change);
  }
  return changes;
}

/**
 * Files the user never edited (their hash is the one recorded at generation) that this version of
 * the generator would write differently for the modules the app already has: the templates
 * changed since the app was made. Adding modules then would rewrite some shared files to the new
 * templates and leave others old, an app that no longer builds, so `add` refuses instead.
 */
function filesChangedSinceGeneration(read: AppFileReader, metadata: AppMetadata, old: GeneratedProject): string[] {
  if (!metadata.files) return [];
  const changed: string[] = [];
  for (const [file, recorded] of Object.entries(metadata.files)) {
    const rendered = old.tree.get(file);
    const user = read(file, `${METADATA_FILE} "files"`);
    if (user === undefined || contentHash(user) !== recorded) continue;
    if (rendered === undefined || rendered !== user) changed.push(file);
  }
  return changed;
}

/**
 * An app made by an earlier release that `upgrade` can bring here: its templates changed since,
 * and adding modules with this release would mix the two, so `add` sends the owner to `upgrade`.
 * (An app older than upgrade goes back is refused below, naming the version that made it.)
 */
function refuseEarlierRelease(metadata: AppMetadata, ids: string[]): void {
  const release = releaseOfApp(metadata);
  if (compareTags(release, CURRENT_RELEASE) >= 0 || !(FROZEN_RELEASES as readonly string[]).includes(release)) return;
  throw new UsageError(
    `This app was made by release ${release} (create-gatekit ${metadata.generator.version}), and this is ${CURRENT_RELEASE}: the templates of the modules it has changed since, and adding modules with this release would mix the two. ` +
      `Run \`create-gatekit upgrade\` first: it brings the app to ${CURRENT_RELEASE} and keeps your edits; then add ${ids.join(' ')}. Nothing was written.`,
  );
}

export interface PlanAddInput {
  appDir: string;
  ids: string[];
  registry: ModuleRegistry;
  now?: Date;
}

/**
 * Plans `add` without touching the disk: renders the app as it was generated and as it will be,
 * and compares both with the user's files.
 */
export function planAdd(input: PlanAddInput): AddPlan {
  const appDir = path.resolve(input.appDir);
  // Every file of the app is read through this: regular files inside the app only.
  const read = appFileReader(appDir);
  const metadata = readAppMetadata(appDir, read);
  refuseEarlierRelease(metadata, input.ids);
  const { registry } = input;
  const now = input.now ?? new Date();
  const before = choicesOf(metadata, registry);
  const choices = withModules(before, input.ids, registry, metadata);
  const projectName = projectNameOf(metadata);
  const render = (selection: Choices): GeneratedProject => generateProject({ projectName, directory: appDir, choices: selection, registry, now });
  const old = render(before);
  const next = render(choices);
  // Before reading the user's files, the files the add changes: a link out of the app comes first.
  refuseLinksOutside(appDir, next.tree.paths().filter((file) => next.tree.get(file) !== old.tree.get(file)), 'create-gatekit add');
  const stale = filesChangedSinceGeneration(read, metadata, old);
  if (stale.length > 0) {
    const made = metadata.generator.version;
    throw new UsageError(
      `This app was made by create-gatekit ${made}, and this is ${GENERATOR_VERSION}: the templates of the modules it has changed since ` +
        `(${stale.length} file${stale.length === 1 ? '' : 's'} you never edited would be written differently, e.g. ${stale.slice(0, 3).join(', ')}). ` +
        `Adding modules with this version would mix the two. Add them with the version that made the app: npx create-gatekit@${made} add ${input.ids.join(' ')} (create-gatekit upgrade brings apps of release ${FROZEN_RELEASES[0]} and later to this one). Nothing was written.`,
    );
  }
  const oldIds = new Set(old.modules.map((module) => module.manifest.id));
  const added = next.modules.filter((module) => !oldIds.has(module.manifest.id));

  const changes = planRenderedFiles(read, metadata, old, next, 'add');

  const currentEnv = read('.env');
  const env = appendMissingEnv(currentEnv, added, metadata.database);
  if (env) changes.push({ file: '.env', kind: env.kind, content: env.content });

  const migration = addMigration(appDir, added, metadata.database, now);
  if (migration) changes.push({ file: migration.file, kind: 'added', content: migration.sql });

  changes.push({ file: 'gatekit.json', kind: 'rewritten', content: next.tree.get('gatekit.json')! });
  // Refused while planning, so --dry-run refuses exactly what the real run would.
  refuseLinksOutside(appDir, [...changes.map((change) => change.proposalFile ?? change.file), ...LOCKFILES], 'create-gatekit add');
  const apiUrl = developmentApiUrl(next.modules, metadata.database, currentEnv === undefined ? {} : envValuesIn(currentEnv));
  return {
    appDir,
    metadata,
    choices,
    added,
    requested: input.ids.filter((id) => added.some((module) => module.manifest.id === id)),
    alreadyThere: input.ids.filter((id) => oldIds.has(id)),
    changes,
    envAdded: env?.names ?? [],
    ...(migration ? { migration: { file: migration.file, modules: migration.modules } } : {}),
    notes: setupNotes(added, apiUrl),
  };
}
