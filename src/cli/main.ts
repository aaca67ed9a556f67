import { Command, CommanderError, Option } from 'commander';
import { isReservedFlagName } from '../core/choices.js';
import { StepError, UsageError, ManifestError } from '../core/errors.js';
import { createRegistry, flaggedModules, loadBuiltinModules, loadPackModules, type ModuleRegistry } from '../core/registry.js';
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

/** The --pack values of a command line, read before commander parses it: a pack's feature modules add flags. */
function packsIn(argv: string[]): string[] {
  return argv.flatMap((arg, index) => {
    if (arg === '--pack') return argv[index + 1] === undefined ? [] : [argv[index + 1]!];
    return arg.startsWith('--pack=') ? [arg.slice('--pack='.length)] : [];
  });
}

function loadRegistry(packs: string[]): ModuleRegistry {
  const extra = packs.flatMap((pack) => {
    const dir = path.resolve(pack);
    if (!existsSync(dir)) throw new UsageError(`--pack '${pack}' does not exist.`);
    return loadPackModules(dir, pack);
  });
  return createRegistry([...loadBuiltinModules(), ...extra]);
}

/**
 * `--<id>` and `--no-<id>` for every feature module that declares its own flag; returns how to read
 * the given ones back from commander's options as toggles.
 */
function addFeatureFlags(program: Command, registry: ModuleRegistry): (options: Record<string, unknown>) => Record<string, boolean> {
  const attributes = flaggedModules(registry).map(({ manifest, dir }) => {
    const { id, name, flag } = manifest;
    const taken = program.options.some((option) => option.long === `--${id}` || option.long === `--no-${id}`);
    if (taken || isReservedFlagName(id)) {
      throw new ManifestError(`Module '${id}' (${dir}) declares a flag, but --${id} is already an option of create-gatekit. Give the module another id.`);
    }
    const on = new Option(`--${id}`, `add ${name} (${flag!.default ? 'on' : 'off'} by default)`);
    program.addOption(on).addOption(new Option(`--no-${id}`, `leave ${name} out`));
    return [id, on.attributeName()] as const;
  });
  return (options) =>
    Object.fromEntries(attributes.flatMap(([id, attribute]) => (typeof options[attribute] === 'boolean' ? [[id, options[attribute]]] : [])));
}

function buildProgram(registry: ModuleRegistry, onDone: (work: Promise<void>) => void): Command {
  const program = new Command('create-gatekit')
    .description('Generate an Express 5 + Prisma 7 app with the authentication methods you choose.')
    .version(GENERATOR_VERSION)
    .argument('[directory]', 'where to create the app')
    .option('--auth <ids>', 'direct methods, comma separated: jwt, magic-link')
    .option('--oauth <ids>', 'OAuth providers, comma separated, or all, or none')
    .option('--hosted <ids>', 'hosted services, comma separated')
    .option('--modules <ids>', 'feature modules, comma separated, added to the default-on ones (each with its own flag has --<id> and --no-<id> too)')
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
    .exitOverride();
  const togglesOf = addFeatureFlags(program, registry);
  program.action((directory: string | undefined, flags: GenerateFlags & Record<string, unknown>) => {
    onDone(runGenerate(directory, { ...flags, toggles: togglesOf(flags) }, registry, createReporter(Boolean(flags.json))));
  });

  program
    .command('list')
    .description('show every module with its category and version tag')
    .option('--json', 'print JSON')
    .option('--template-version <X.Y>', 'only modules available at this release')
    .option('--pack <path>', 'load a template pack (repeatable)', collect, [])
    .exitOverride()
    .action((flags: ListFlags) => {
      onDone(Promise.resolve().then(() => runList(registry, flags, createReporter(Boolean(flags.json)))));
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
  try {
    const program = buildProgram(loadRegistry(packsIn(argv)), (promise) => {
      work = promise;
    });
    await program.parseAsync(argv, { from: 'user' });
    await work;
    return 0;
  } catch (error) {
    return report(error);
  }
}
