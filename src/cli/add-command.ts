import path from 'node:path';
import { readAppMetadata } from '../core/app-metadata.js';
import { applyChanges } from '../core/apply-changes.js';
import { CancelledError, InterruptedError, StepError, UsageError } from '../core/errors.js';
import { addableModules, planAdd, writesOf, type AddPlan, type ChangeKind, type FileChange } from '../core/plan-add.js';
import { nextCommands, stepList, type NextSteps } from '../core/next-steps.js';
import { moduleSummary, type ModuleRegistry } from '../core/registry.js';
import { installAndMigrate } from './project-steps.js';
import type { Reporter } from './reporter.js';
import { isTerminal } from './terminal.js';

export interface AddFlags {
  cwd?: string;
  dryRun?: boolean;
  install?: boolean;
  json?: boolean;
  pack: string[];
}

const HEADINGS: Record<ChangeKind, string> = {
  added: 'Added',
  rewritten: 'Rewritten (unchanged since generated)',
  merged: 'Merged with your edits',
  removed: 'Removed (no longer generated, unchanged since)',
  conflict: 'Conflicting with your edits (your file is untouched)',
};

/** Every file by what happens to it, under one heading per kind of change. */
export function changeLines(changes: FileChange[]): string[] {
  const lines: string[] = [];
  for (const kind of Object.keys(HEADINGS) as ChangeKind[]) {
    const ofKind = changes.filter((change) => change.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push(`${HEADINGS[kind]}:`);
    for (const change of ofKind) lines.push(`  ${change.file}${change.proposalFile ? ` -> ${change.proposalFile}` : ''}`);
  }
  return lines;
}

/** What to do about each conflict, after the list of files. */
export function actionLines(changes: FileChange[]): string[] {
  const conflicts = changes.filter((change) => change.kind === 'conflict');
  if (conflicts.length === 0) return [];
  return [`Action needed (${conflicts.length}):`, ...conflicts.map((change) => `  ${change.file}: ${change.action}`)];
}

/** Each file of the JSON summaries: its path, the change, and for a conflict the proposal and what to do. */
export function changeSummary(changes: FileChange[]) {
  return changes.map((change) => ({
    path: change.file,
    change: change.kind,
    ...(change.kind === 'conflict' ? { ...(change.proposalFile ? { proposal: change.proposalFile } : {}), action: change.action } : {}),
  }));
}

/** The plan as lines a person reads: every file by what happens to it, and what to do about conflicts. */
export function describePlan(plan: AddPlan, dryRun: boolean): string[] {
  const asked = plan.requested;
  const required = plan.added.filter((module) => !plan.requested.includes(module.manifest.id)).map((module) => module.manifest.id);
  const lines = [`${dryRun ? 'Dry run: would add' : 'Adding'} ${asked.join(', ')}${required.length > 0 ? ` (with ${required.join(', ')}, which ${asked.length > 1 ? 'they need' : 'it needs'})` : ''} to ${plan.appDir}`];
  if (plan.alreadyThere.length > 0) lines.push(`Already in the app, left as they are: ${plan.alreadyThere.join(', ')}.`);
  lines.push(...changeLines(plan.changes));
  if (plan.migration) lines.push(`New migration: ${path.dirname(plan.migration.file)} (tables of ${plan.migration.modules.join(', ')}); earlier migrations are not touched.`);
  if (plan.envAdded.length > 0) lines.push(`.env gains ${plan.envAdded.join(', ')}.`);
  lines.push(...actionLines(plan.changes));
  if (dryRun) lines.push('Nothing was written.');
  return lines;
}

/** The JSON summary; `install`: whether the add installs (a dry run: whether the real run would). */
function summary(plan: AddPlan, dryRun: boolean, install: boolean) {
  return {
    directory: plan.appDir,
    dryRun,
    added: plan.added.map(moduleSummary),
    files: changeSummary(plan.changes),
    migration: plan.migration?.file ?? null,
    env: plan.envAdded,
    installed: !dryRun && install,
    nextSteps: stepList(nextStepsOf(plan, install)),
  };
}

/** Install and migrate unless the add did, start the app; then the added modules' notes. */
function nextStepsOf(plan: AddPlan, installed: boolean): NextSteps {
  return { commands: nextCommands({ pm: plan.metadata.packageManager, installed }), notes: plan.notes };
}

async function askForModules(registry: ModuleRegistry, appDir: string): Promise<string[]> {
  const prompts = await import('@clack/prompts');
  const metadata = readAppMetadata(appDir);
  const offered = addableModules(registry, metadata);
  if (offered.length === 0) throw new UsageError('This app already has every module its template version and database allow.');
  prompts.intro(`create-gatekit add (${path.basename(appDir)})`);
  const chosen = await prompts.multiselect({
    message: 'Modules to add',
    options: offered.map(({ manifest }) => ({ value: manifest.id, label: manifest.name, hint: `${manifest.category}: ${manifest.description}` })),
    required: true,
  });
  if (prompts.isCancel(chosen)) {
    prompts.cancel('Cancelled; nothing was written.');
    throw new CancelledError('Cancelled at a prompt; nothing was written.');
  }
  return chosen;
}

/** Exit code of an add that finished but left conflicts for the user to resolve, so scripts notice. */
export const CONFLICTS_LEFT = 3;

/** Adds the modules; resolves to CONFLICTS_LEFT when a merge left a conflict (every other step still ran). */
export async function runAdd(ids: string[], flags: AddFlags, registry: ModuleRegistry, reporter: Reporter): Promise<number | void> {
  const appDir = path.resolve(flags.cwd ?? '.');
  let chosen = ids;
  if (chosen.length === 0) {
    if (!isTerminal({ json: flags.json })) {
      const offered = addableModules(registry, readAppMetadata(appDir)).map((module) => module.manifest.id);
      throw new UsageError(`Name the modules to add: create-gatekit add <module...>. Modules this app can add: ${offered.join(', ') || 'none'}.`);
    }
    chosen = await askForModules(registry, appDir);
  }
  const plan = planAdd({ appDir, ids: chosen, registry });
  const lines = describePlan(plan, Boolean(flags.dryRun));
  const install = flags.install !== false;
  if (flags.dryRun) {
    if (flags.json) reporter.json(summary(plan, true, install));
    else for (const line of lines) reporter.result(line);
    return;
  }

  const applied = applyChanges(appDir, writesOf(plan.changes));
  reporter.block(lines);
  if (install) {
    try {
      await installAndMigrate(reporter, appDir, { pm: plan.metadata.packageManager, db: plan.metadata.database }, { announce: false });
    } catch (error) {
      applied.rollback();
      reporter.warn('! The app\'s files were put back as they were before this add (node_modules may hold the new packages; the database is unchanged: each migration runs in a transaction).');
      // The files are back, so finishing the job is running this add again.
      const again = `create-gatekit add ${chosen.join(' ')}${flags.cwd ? ` --cwd ${flags.cwd}` : ''}${flags.pack.map((pack) => ` --pack ${pack}`).join('')}`;
      if (error instanceof InterruptedError) throw new InterruptedError(error.step, `${error.message} Nothing was added.`, again);
      if (error instanceof StepError) throw new StepError(error.step, error.message, `fix the cause, then ${again}`);
      throw error;
    }
  }
  if (flags.json) reporter.json(summary(plan, false, install));
  const conflicts = plan.changes.filter((change) => change.kind === 'conflict').length;
  const done = `Added ${plan.requested.join(', ')}${conflicts > 0 ? `; ${conflicts} file(s) need your hand (see Action needed above)` : ''}.`;
  reporter.finish('Next steps', nextStepsOf(plan, install), done);
  if (conflicts > 0) return CONFLICTS_LEFT;
}
