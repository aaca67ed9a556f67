import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { applyChanges } from '../core/apply-changes.js';
import { runCommand } from '../core/choices.js';
import { UsageError } from '../core/errors.js';
import type { NextSteps } from '../core/next-steps.js';
import { stepList } from '../core/next-steps.js';
import { writesOf } from '../core/plan-add.js';
import { planUpgrade, type UpgradePlan } from '../core/plan-upgrade.js';
import type { ModuleRegistry } from '../core/registry.js';
import { GENERATOR_VERSION } from '../core/version.js';
import { actionLines, CONFLICTS_LEFT, changeLines, changeSummary } from './add-command.js';
import type { Reporter } from './reporter.js';

export interface UpgradeFlags {
  cwd?: string;
  dryRun?: boolean;
  json?: boolean;
  force?: boolean;
  pack: string[];
}

function git(appDir: string, args: string[]) {
  return spawnSync('git', ['-C', appDir, ...args], { encoding: 'utf8', timeout: 60_000 });
}

/**
 * In a git working tree, the app's folder must have nothing uncommitted (untracked files count:
 * the upgrade may write one of their paths), so that `git diff` shows the upgrade and nothing
 * else. Outside git (or without git) there is nothing to check. `--force` skips it.
 */
export function uncommittedChanges(appDir: string): string[] {
  const inside = git(appDir, ['rev-parse', '--is-inside-work-tree']);
  if (inside.error || inside.status !== 0 || inside.stdout.trim() !== 'true') return [];
  const status = git(appDir, ['status', '--porcelain', '--untracked-files=all', '--', '.']);
  if (status.error || status.status !== 0) return [];
  return status.stdout.split('\n').filter(Boolean).map((line) => line.slice(3)).sort();
}

function refuseUncommitted(appDir: string): void {
  const files = uncommittedChanges(appDir);
  if (files.length === 0) return;
  throw new UsageError(
    `${appDir} has uncommitted changes (${files.length} file${files.length === 1 ? '' : 's'}: ${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}). ` +
      'upgrade writes into a clean working tree, so that git diff shows exactly what it changed: commit or stash them first, or pass --force. Nothing was written.',
  );
}

/** The plan as lines a person reads. */
export function describeUpgrade(plan: UpgradePlan, dryRun: boolean): string[] {
  const made = plan.metadata.generator.version;
  if (plan.upToDate) return [`${plan.appDir} is at release ${plan.to} already (made by create-gatekit ${made}): nothing to upgrade.`];
  const lines = [
    `${dryRun ? 'Dry run: would upgrade' : 'Upgrading'} ${plan.appDir} from release ${plan.from} (create-gatekit ${made}) to ${plan.to} (create-gatekit ${GENERATOR_VERSION})`,
    ...changeLines(plan.changes),
  ];
  if (plan.gained.length > 0) lines.push(`Release ${plan.to} adds ${plan.gained.join(', ')} to the modules the app has (they come with ones it chose).`);
  const migration = plan.migration;
  if (migration) {
    const what = [migration.schemaChange ? `the schema change of release ${plan.to}` : '', migration.dataSteps.length > 0 ? `data steps ${migration.dataSteps.join(', ')}` : ''].filter(Boolean).join(', then ');
    lines.push(`${migration.proposed ? 'Proposed migration' : 'New migration'}: ${path.dirname(migration.file)} (${what}); earlier migrations are not touched.`);
  } else {
    lines.push('No migration: the database schema is the same.');
  }
  if (plan.envAdded.length > 0) lines.push(`.env gains ${plan.envAdded.join(', ')}.`);
  lines.push(...actionLines(plan.changes));
  if (dryRun) lines.push('Nothing was written.');
  return lines;
}

/** Install and migrate (the upgrade does neither), then start; and how to review it. */
function nextStepsOf(plan: UpgradePlan): NextSteps {
  const { packageManager: pm } = plan.metadata;
  const run = runCommand(pm);
  return {
    commands: [`${pm} install`, `${run} db:migrate`, `${run} build`, `${run} test`],
    notes: ['Review the upgrade with git diff (and git status for the new files), then commit it.'],
  };
}

function summary(plan: UpgradePlan, dryRun: boolean) {
  return {
    directory: plan.appDir,
    dryRun,
    from: plan.from,
    to: plan.to,
    upToDate: plan.upToDate,
    files: changeSummary(plan.changes),
    migration: plan.migration ? { path: plan.migration.file, proposed: plan.migration.proposed, dataSteps: plan.migration.dataSteps } : null,
    env: plan.envAdded,
    nextSteps: plan.upToDate ? [] : stepList(nextStepsOf(plan)),
  };
}

/**
 * `create-gatekit upgrade`: brings an app made by an earlier release to this one, keeping its
 * owner's edits. Resolves to CONFLICTS_LEFT when a merge left a conflict (everything else was
 * still written). It installs and migrates nothing: the owner reviews the diff first.
 */
export async function runUpgrade(flags: UpgradeFlags, registry: ModuleRegistry, reporter: Reporter): Promise<number | undefined> {
  const appDir = path.resolve(flags.cwd ?? '.');
  const plan = await planUpgrade({ appDir, registry, beforeRender: flags.force ? undefined : () => refuseUncommitted(appDir) });
  const dryRun = Boolean(flags.dryRun);
  const lines = describeUpgrade(plan, dryRun);
  if (dryRun || plan.upToDate) {
    if (flags.json) reporter.json(summary(plan, dryRun));
    else for (const line of lines) reporter.result(line);
    return undefined;
  }
  applyChanges(appDir, writesOf(plan.changes), 'create-gatekit upgrade');
  reporter.block(lines);
  if (flags.json) reporter.json(summary(plan, false));
  const conflicts = plan.changes.filter((change) => change.kind === 'conflict').length;
  const done = `Upgraded to release ${plan.to}${conflicts > 0 ? `; ${conflicts} file(s) need your hand (see Action needed above)` : ''}.`;
  reporter.finish('Next steps', nextStepsOf(plan), done);
  return conflicts > 0 ? CONFLICTS_LEFT : undefined;
}
