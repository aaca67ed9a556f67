import { Command, CommanderError } from 'commander';
import { StepError, UsageError, ManifestError } from '../core/errors.js';
import { createRegistry, loadBuiltinModules, loadPackModules } from '../core/registry.js';
import { GENERATOR_VERSION } from '../core/version.js';
import type { GenerateFlags } from './flags.js';
import { runGenerate } from './generate-command.js';
import { runList, type ListFlags } from './list-command.js';
import { createReporter } from './reporter.js';
import path from 'node:path';
import { existsSync } from 'node:fs';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function loadRegistry(packs: string[]) {
  const extra = packs.flatMap((pack) => {
    const dir = path.resolve(pack);
    if (!existsSync(dir)) throw new UsageError(`--pack '${pack}' does not exist.`);
    return loadPackModules(dir, pack);
  });
  return createRegistry([...loadBuiltinModules(), ...extra]);
}

function buildProgram(onDone: (work: Promise<void>) => void): Command {
  const program = new Command('create-gatekit')
    .description('Generate an Express 5 + Prisma 7 app with the authentication methods you choose.')
    .version(GENERATOR_VERSION)
    .argument('[directory]', 'where to create the app')
    .option('--auth <ids>', 'direct methods, comma separated: jwt, magic-link')
    .option('--oauth <ids>', 'OAuth providers, comma separated, or all, or none')
    .option('--hosted <ids>', 'hosted services, comma separated')
    .option('--orgs', 'add the organizations module (default when available)')
    .option('--no-orgs', 'leave the organizations module out')
    .option('--db <name>', 'sqlite, postgresql or mysql (default sqlite)')
    .option('--template-version <X.Y>', 'offer only modules tagged at or below this release')
    .option('--pm <name>', 'npm, pnpm, yarn or bun (default: the one running this)')
    .option('--install', 'install dependencies and prepare the database (default)')
    .option('--no-install', 'skip installing and migrating')
    .option('--git', 'git init and a first commit (default)')
    .option('--no-git', 'skip git')
    .option('-y, --yes', 'never prompt; defaults for whatever is not given')
    .option('--config <file>', 'a JSON file with the same choices; flags override it')
    .option('--dry-run', 'print what would be written, write nothing')
    .option('--json', 'print one JSON summary on stdout')
    .option('--force', 'allow a non-empty target directory')
    .option('--pack <path>', 'load a template pack (repeatable)', collect, [])
    .showSuggestionAfterError(true)
    .enablePositionalOptions()
    .exitOverride()
    .action((directory: string | undefined, flags: GenerateFlags) => {
      onDone(runGenerate(directory, flags, loadRegistry(flags.pack), createReporter(Boolean(flags.json))));
    });

  program
    .command('list')
    .description('show every module with its category and version tag')
    .option('--json', 'print JSON')
    .option('--template-version <X.Y>', 'only modules available at this release')
    .option('--pack <path>', 'load a template pack (repeatable)', collect, [])
    .exitOverride()
    .action((flags: ListFlags & { pack: string[] }) => {
      onDone(Promise.resolve().then(() => runList(loadRegistry(flags.pack), flags, createReporter(Boolean(flags.json)))));
    });
  return program;
}

function report(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    // commander already printed its message; usage errors exit 2
    return 2;
  }
  if (error instanceof UsageError || error instanceof ManifestError) {
    process.stderr.write(`create-gatekit: ${error.message}\n`);
    return 2;
  }
  if (error instanceof StepError) {
    process.stderr.write(`create-gatekit: step '${error.step}' failed: ${error.message}\n`);
    if (error.retry) process.stderr.write(`To retry: ${error.retry}\n`);
    return 1;
  }
  process.stderr.write(`create-gatekit: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
  return 1;
}

/** Runs the CLI and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let work: Promise<void> = Promise.resolve();
  const program = buildProgram((promise) => {
    work = promise;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    await work;
    return 0;
  } catch (error) {
    return report(error);
  }
}
