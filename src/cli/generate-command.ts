import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { mergeChoices, overlayChoices, readConfigFile, type Choices } from '../core/choices.js';
import { UsageError } from '../core/errors.js';
import { generateProject, type GeneratedProject } from '../core/generate-project.js';
import { flaggedModules } from '../core/choosable-modules.js';
import { checkPackageManager } from '../core/package-managers.js';
import { moduleSummary, type ModuleRegistry } from '../core/registry.js';
import { CURRENT_RELEASE } from '../core/releases.js';
import { refuseLinksOutside } from '../core/links.js';
import { checkTarget, isEmptyDirectory, writeTree } from '../core/write-tree.js';
import { choicesFromFlags, type GenerateFlags } from './flags.js';
import { askForChoices } from './prompts.js';
import type { Reporter } from './reporter.js';
import { commitToGit, installAndMigrate } from './project-steps.js';
import { isTerminal } from './terminal.js';

export function isInteractive(flags: GenerateFlags): boolean {
  return isTerminal(flags);
}

const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]*$/;

function projectNameOf(directory: string): string {
  const name = path.basename(path.resolve(directory)).toLowerCase();
  if (!PROJECT_NAME.test(name)) {
    throw new UsageError(
      `'${path.basename(directory)}' cannot be an npm package name. Use lowercase letters, digits, '-', '.' or '_', starting with a letter or digit.`,
    );
  }
  return name;
}

/** Database URL for the development .env: the caller's DATABASE_URL when it fits the chosen database. */
function envOverrides(choices: Choices): Record<string, string> {
  const url = process.env.DATABASE_URL;
  if (!url) return {};
  const fits =
    (choices.db === 'postgresql' && /^postgres(ql)?:\/\//.test(url)) ||
    (choices.db === 'mysql' && /^(mysql|mariadb):\/\//.test(url));
  return fits ? { DATABASE_URL: url } : {};
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
    nextSteps: project.nextSteps,
  };
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
  let directory = directoryArg;
  let answers = {};
  if (isInteractive(flags)) {
    if (directory) checkTarget(directory, Boolean(flags.force));
    const asked = await askForChoices(registry, { ...known, directory, templateVersion: known.templateVersion ?? CURRENT_RELEASE });
    directory ??= asked.directory;
    answers = asked;
  }
  if (!directory) {
    throw new UsageError('Missing the project directory: create-gatekit <directory> [options]. Example: create-gatekit my-app --yes');
  }
  const choices = mergeChoices(fromConfig, fromFlags, answers);
  const projectName = projectNameOf(directory);
  // Before anything is written: an install that cannot start would leave a half-made project.
  if (choices.install) checkPackageManager(choices.pm);
  if (!flags.dryRun) checkTarget(directory, Boolean(flags.force));

  const project = generateProject({ projectName, directory, choices, registry, envOverrides: envOverrides(choices) });
  // --force writes into the folder in place; a dry run refuses what the real run would.
  if (existsSync(directory) && statSync(directory).isDirectory() && !isEmptyDirectory(directory)) refuseLinksOutside(directory, project.tree.paths(), 'create-gatekit');

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
  if (choices.install) await installAndMigrate(reporter, directory, choices);
  if (choices.git) await commitToGit(reporter, directory);

  if (flags.json) {
    reporter.json(summary(directory, project, false, choices));
  }
  reporter.finish('Next steps', project.nextSteps, reporter.clack ? `Your app is ready in ${path.resolve(directory)}` : '');
}
