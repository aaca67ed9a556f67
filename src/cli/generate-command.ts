import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { mergeChoices, overlayChoices, readConfigFile, type Choices } from '../core/choices.js';
import { InterruptedError, StepError, UsageError } from '../core/errors.js';
import { generateProject, type GeneratedProject } from '../core/generate-project.js';
import { flaggedModules } from '../core/choosable-modules.js';
import { checkPackageManager } from '../core/package-managers.js';
import { moduleSummary, type ModuleRegistry } from '../core/registry.js';
import { CURRENT_RELEASE } from '../core/releases.js';
import { refuseLinksOutside } from '../core/links.js';
import { checkTarget, isEmptyDirectory, writeTree } from '../core/write-tree.js';
import { resolveSelection } from '../core/resolve-selection.js';
import { stepList } from '../core/next-steps.js';
import { projectNameFor, projectNameProblem } from '../core/project-name.js';
import { isPostgresUrl, maskPassword, postgresServerProblem } from '../core/postgres-server.js';
import { choicesFromFlags, type GenerateFlags } from './flags.js';
import { askForChoices, askForDatabaseUrl, type PromptAnswers } from './prompts.js';
import type { Reporter } from './reporter.js';
import { commitToGit, finishingCommands, installAndMigrate, STEP_NAMES, type ProjectStep } from './project-steps.js';
import { isTerminal } from './terminal.js';

export function isInteractive(flags: GenerateFlags): boolean {
  return isTerminal(flags);
}

function projectNameOf(directory: string): string {
  const problem = projectNameProblem(directory);
  if (problem) throw new UsageError(problem);
  return projectNameFor(directory);
}

/** Database URL for the development .env when it is not PostgreSQL's: the caller's DATABASE_URL when it fits. */
function mysqlUrl(choices: Choices): string | undefined {
  const url = process.env.DATABASE_URL;
  return choices.db === 'mysql' && url && /^(mysql|mariadb):\/\//.test(url) ? url : undefined;
}

/** What to do about a PostgreSQL URL that does not work. */
function postgresFix(problem: string): string {
  if (problem.includes('SQLSTATE 3D000')) return 'Create the database first (createdb <name>), or name one that exists in DATABASE_URL.';
  if (problem.includes('SQLSTATE 28')) return 'Use a role the server lets in (check pg_hba.conf), or fix the user in DATABASE_URL.';
  return 'Start the server, or correct the host and port in DATABASE_URL.';
}

/**
 * The DATABASE_URL a PostgreSQL project is written with. With install on it must reach a server
 * before anything is written: from the environment, else asked for in a terminal, else a usage
 * error naming DATABASE_URL. With --no-install none is needed (.env then holds the example, and
 * the run says so).
 */
async function postgresUrl(choices: Choices, interactive: boolean): Promise<string | undefined> {
  const fromEnv = process.env.DATABASE_URL;
  const later = 'or pass --no-install to write the project now and migrate later';
  if (!choices.install) return fromEnv && isPostgresUrl(fromEnv) ? fromEnv : undefined;
  if (fromEnv) {
    if (!isPostgresUrl(fromEnv)) {
      throw new UsageError(`DATABASE_URL (${maskPassword(fromEnv)}) is not a PostgreSQL URL; --db postgresql needs postgresql://user:password@host:5432/database. Set it, ${later}.`);
    }
    const problem = await postgresServerProblem(fromEnv);
    if (problem) throw new UsageError(`DATABASE_URL ${maskPassword(fromEnv)} cannot be used: ${problem}. ${postgresFix(problem)} Nothing was written (${later}).`);
    return fromEnv;
  }
  if (!interactive) {
    throw new UsageError(
      `--db postgresql installs and migrates, which needs a PostgreSQL server: set DATABASE_URL (DATABASE_URL=postgresql://user:password@localhost:5432/app), ${later}. Nothing was written.`,
    );
  }
  return askForDatabaseUrl(async (url) => {
    if (!isPostgresUrl(url)) return 'A PostgreSQL URL starts with postgresql:// (postgresql://user:password@host:5432/database).';
    const problem = await postgresServerProblem(url);
    return problem ? `${maskPassword(url)}: ${problem}. ${postgresFix(problem)}` : undefined;
  });
}

function summary(directory: string, project: GeneratedProject, dryRun: boolean, choices: Choices) {
  return {
    directory: path.resolve(directory),
    dryRun,
    templateVersion: choices.templateVersion,
    database: choices.db,
    modules: project.modules.map(moduleSummary),
    files: project.tree.entries().map(([file, content]) => ({ path: file, bytes: Buffer.byteLength(content) })),
    installed: !dryRun && choices.install,
    nextSteps: stepList(project.nextSteps),
  };
}

/**
 * A step after writing failed or was interrupted: the error again, now naming what is on disk,
 * the steps that did not run and the commands that finish the job.
 */
function unfinished(error: unknown, directory: string, files: number, choices: Choices, remaining: ProjectStep[]): unknown {
  if (!(error instanceof StepError) && !(error instanceof InterruptedError)) return error;
  const failed = (error.step === 'install' || error.step === 'database' ? error.step : remaining[0]) as ProjectStep;
  const notRun = remaining.filter((step) => step !== failed);
  const onDisk = `The project is written to ${path.resolve(directory)} (${files} files)${failed === 'install' ? ', its dependencies not installed' : ''}.${
    notRun.length > 0 ? ` Not run: ${notRun.map((step) => STEP_NAMES[step]).join(', ')}.` : ''
  }`;
  const retry = `${finishingCommands(directory, choices.pm, remaining)}${remaining.includes('database') && choices.db !== 'sqlite' ? ' (check DATABASE_URL in .env and that the server is running)' : ''}${
    notRun.includes('git') ? ' (git was skipped: it runs after the steps before it)' : ''
  }`;
  if (error instanceof InterruptedError) return new InterruptedError(error.step, `${error.message} ${onDisk}`, retry);
  return new StepError(error.step, `${error.message}\n${onDisk}`, retry);
}

export async function runGenerate(
  directoryArg: string | undefined,
  flags: GenerateFlags,
  registry: ModuleRegistry,
  reporter: Reporter,
): Promise<void> {
  const flagIds = flaggedModules(registry).map((module) => module.manifest.id);
  const fromConfig = flags.config ? readConfigFile(flags.config, flagIds) : {};
  const fromFlags = choicesFromFlags(flags);
  const known = overlayChoices(fromConfig, fromFlags);
  const interactive = isInteractive(flags);
  let directory = directoryArg;
  let force = Boolean(flags.force);
  let answers: PromptAnswers = {};
  // What the real run refuses, a dry run refuses too, and before any prompt where it can.
  if (directory) {
    projectNameOf(directory);
    checkTarget(directory, force);
  }
  if (interactive) {
    answers = await askForChoices(registry, { ...known, directory, templateVersion: known.templateVersion ?? CURRENT_RELEASE });
    directory ??= answers.directory;
    if (answers.force) force = true;
  }
  if (!directory) {
    throw new UsageError('Missing the project directory: create-gatekit <directory> [options]. Example: create-gatekit my-app --yes');
  }
  const { directory: _asked, force: _confirmed, ...chosen } = answers;
  const choices = mergeChoices(fromConfig, fromFlags, chosen);
  const projectName = projectNameOf(directory);
  checkTarget(directory, force);
  resolveSelection(choices, registry);
  // Before anything is written: an install that cannot start would leave a half-made project.
  if (choices.install) checkPackageManager(choices.pm);
  const databaseUrl = choices.db === 'postgresql' ? await postgresUrl(choices, interactive) : mysqlUrl(choices);

  const project = generateProject({ projectName, directory, choices, registry, envOverrides: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
  // --force writes into the folder in place; a dry run refuses what the real run would.
  if (existsSync(directory) && statSync(directory).isDirectory() && !isEmptyDirectory(directory)) refuseLinksOutside(directory, project.tree.paths(), 'create-gatekit');
  if (choices.db !== 'sqlite' && !databaseUrl) {
    reporter.warn(`! DATABASE_URL in .env is the example from .env.example (${maskPassword(project.tree.get('.env.example')?.match(/^DATABASE_URL=(.*)$/m)?.[1] ?? 'unset')}); set it to your server before db:migrate.`);
  }

  if (flags.dryRun) {
    if (flags.json) {
      reporter.json(summary(directory, project, true, choices));
    } else {
      reporter.result(`Dry run: would write ${project.tree.size} files (${project.tree.totalBytes()} bytes) to ${path.resolve(directory)}:`);
      for (const [file, content] of project.tree.entries()) reporter.result(`  ${file} (${Buffer.byteLength(content)} B)`);
      reporter.result('Nothing was written.');
    }
    return;
  }

  writeTree(directory, project.tree);
  reporter.success(`Wrote ${project.tree.size} files to ${path.resolve(directory)}`);
  const remaining: ProjectStep[] = [...(choices.install ? (['install', 'database'] as const) : []), ...(choices.git ? (['git'] as const) : [])];
  try {
    if (choices.install) await installAndMigrate(reporter, directory, choices, { onDone: (step) => remaining.splice(remaining.indexOf(step), 1) });
    if (choices.git) await commitToGit(reporter, directory);
  } catch (error) {
    throw unfinished(error, directory, project.tree.size, choices, remaining);
  }

  if (flags.json) {
    reporter.json(summary(directory, project, false, choices));
  }
  reporter.finish('Next steps', project.nextSteps, reporter.clack ? `Your app is ready in ${path.resolve(directory)}` : '');
}
