import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Choices } from '../core/choices.js';
import { InterruptedError } from '../core/errors.js';
import { installArgs } from '../core/package-managers.js';
import type { Reporter } from './reporter.js';
import { runStep } from './run-step.js';

function runScript(pm: Choices['pm'], script: string): string[] {
  return pm === 'npm' || pm === 'bun' ? ['run', script] : [script];
}

/** Installs dependencies (which also generates the Prisma client) and applies the migrations. */
export async function installAndMigrate(
  reporter: Reporter,
  directory: string,
  choices: Pick<Choices, 'pm' | 'db'>,
  options: { announce?: boolean; onDone?: (step: 'install' | 'database') => void } = {},
): Promise<void> {
  const cwd = path.resolve(directory);
  const where = `cd ${directory} && `;
  const args = installArgs(choices.pm, cwd);
  const install = [choices.pm, ...args].join(' ');
  if (options.announce !== false) reporter.info(`The project is written to ${cwd}; if a step below fails, it stays there and the step can be retried.`);
  await runStep(reporter, {
    step: 'install',
    label: `Installing dependencies (${install})`,
    command: choices.pm,
    args,
    cwd,
    retry: `${where}${install} && ${choices.pm} ${runScript(choices.pm, 'db:migrate').join(' ')}`,
  });
  options.onDone?.('install');
  await runStep(reporter, {
    step: 'database',
    label: 'Applying database migrations (db:migrate)',
    command: choices.pm,
    args: runScript(choices.pm, 'db:migrate'),
    cwd,
    retry: `${where}${choices.pm} ${runScript(choices.pm, 'db:migrate').join(' ')}${choices.db === 'sqlite' ? '' : ' (check DATABASE_URL in .env and that the server is running)'}`,
  });
  options.onDone?.('database');
}

/** The steps after writing a new project, in the order they run. */
export type ProjectStep = 'install' | 'database' | 'git';

export const STEP_NAMES: Record<ProjectStep, string> = {
  install: 'install',
  database: 'database migrations (db:migrate)',
  git: 'git init and a first commit',
};

const FIRST_COMMIT = 'Initial commit from create-gatekit';

/** The exact commands that run `steps` by hand in the project folder, joined with &&. */
export function finishingCommands(directory: string, pm: Choices['pm'], steps: ProjectStep[]): string {
  const commands = steps.map((step) =>
    step === 'install' ? `${pm} install` : step === 'database' ? `${pm} ${runScript(pm, 'db:migrate').join(' ')}` : `git init -b main && git add -A && git commit -m "${FIRST_COMMIT}"`,
  );
  return [`cd ${directory}`, ...commands].join(' && ');
}

/**
 * Runs git in the new project. The project's .git is the one `git init` makes here (a pack cannot
 * bring one: loading it refuses anything under .git/); fsmonitor stays off all the same, so no
 * configuration can make `git add` run a command.
 */
function runGit(cwd: string, args: string[], env?: NodeJS.ProcessEnv) {
  return spawnSync('git', ['-c', 'core.fsmonitor=false', ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
}

/**
 * git init and a first commit; a missing git or identity is a warning, never a failure. Ctrl-C
 * reaches git too (same terminal): while it runs, this process listens for the signal instead of
 * dying by it, so the interrupt ends as InterruptedError, which names what is on disk.
 */
export async function commitToGit(reporter: Reporter, directory: string): Promise<void> {
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  try {
    await initAndCommit(reporter, directory, () => interrupted);
    // A signal that arrived between two git commands is handled once the event loop runs.
    await new Promise((resolve) => setImmediate(resolve));
    if (interrupted) throw gitInterrupted();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  }
}

const gitInterrupted = () => new InterruptedError('git', 'git init and a first commit was interrupted.');

async function initAndCommit(reporter: Reporter, directory: string, interrupted: () => boolean): Promise<void> {
  const cwd = path.resolve(directory);
  const git = (args: string[], env?: NodeJS.ProcessEnv) => {
    const result = runGit(cwd, args, env);
    if (result.signal === 'SIGINT' || result.signal === 'SIGTERM' || interrupted()) throw gitInterrupted();
    return result;
  };
  if (git(['--version']).status !== 0) {
    reporter.warn('! git is not installed; skipped git init.');
    return;
  }
  if (git(['rev-parse', '--is-inside-work-tree']).stdout.trim() === 'true' && git(['rev-parse', '--show-toplevel']).stdout.trim() !== cwd) {
    reporter.warn('! The project is inside another git repository; skipped git init.');
    return;
  }
  const hasIdentity = git(['config', 'user.email']).stdout.trim() !== '';
  const identity = hasIdentity
    ? {}
    : { GIT_AUTHOR_NAME: 'create-gatekit', GIT_AUTHOR_EMAIL: 'create-gatekit@localhost', GIT_COMMITTER_NAME: 'create-gatekit', GIT_COMMITTER_EMAIL: 'create-gatekit@localhost' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', FIRST_COMMIT]]) {
    const result = git(args, identity);
    if (result.status !== 0) {
      reporter.warn(`! git ${args[0]} failed (${result.stderr.trim()}); the project is fine, commit it yourself.`);
      return;
    }
  }
  reporter.success('Created a git repository with a first commit');
}
