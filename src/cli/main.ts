import { Command, CommanderError, Option } from 'commander';
import { isReservedFlagName, packsInConfigFile } from '../core/choices.js';
import { CancelledError, InterruptedError, StepError, UsageError, ManifestError } from '../core/errors.js';
import { readAppMetadata } from '../core/app-metadata.js';
import { recordedPackSpec, resolvePack } from '../core/packs.js';
import { flaggedModules } from '../core/choosable-modules.js';
import { createRegistry, loadBuiltinModules, loadPack, type ModuleRegistry } from '../core/registry.js';
import { GENERATOR_VERSION } from '../core/version.js';
import type { GenerateFlags } from './flags.js';
import { runGenerate } from './generate-command.js';
import { runList, type ListFlags } from './list-command.js';
import { createReporter, type Reporter } from './reporter.js';
import { canAnimate, isTerminal } from './terminal.js';
import { runAdd, type AddFlags } from './add-command.js';
import { runPackCheck, type PackCheckFlags } from './pack-check-command.js';
import { runUpgrade, type UpgradeFlags } from './upgrade-command.js';
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

/** The value of an option in a command line not yet parsed: --cwd DIR or --cwd=DIR. */
function optionIn(argv: string[], name: string): string | undefined {
  const index = argv.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index < 0) return undefined;
  return argv[index] === name ? argv[index + 1] : argv[index]!.slice(name.length + 1);
}

/**
 * The packs to load: those given with --pack and, for `add` and `upgrade`, those the app's gatekit.json records
 * (found again by path or installed package name, from the app's folder).
 */
function packSpecs(argv: string[]): { specs: string[]; from: string[] } {
  const config = optionIn(argv, '--config');
  const given = [...(config ? packsInConfigFile(config) : []), ...packsIn(argv)];
  if (argv[0] !== 'add' && argv[0] !== 'upgrade') return { specs: given, from: [process.cwd()] };
  const appDir = path.resolve(optionIn(argv, '--cwd') ?? '.');
  const recorded = existsSync(path.join(appDir, 'gatekit.json')) ? readAppMetadata(appDir).packs : [];
  const names = new Set(given.map((spec) => resolvePack(spec, [process.cwd(), appDir]).ref.name ?? spec));
  const again = recorded.filter((ref) => !names.has(ref.name ?? ref.spec) && !given.includes(ref.spec)).map(recordedPackSpec);
  return { specs: [...given, ...again], from: [process.cwd(), appDir] };
}

function loadRegistry(argv: string[]): ModuleRegistry {
  const { specs, from } = packSpecs(argv);
  const packs = specs.map((spec) => resolvePack(spec, from));
  return createRegistry([...loadBuiltinModules(), ...packs.flatMap(loadPack)], packs.map((pack) => pack.ref));
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

/** Plain lines, or clack's in a terminal (loaded only then: it is not needed in CI). */
async function reporterFor(flags: { json?: boolean; yes?: boolean }): Promise<Reporter> {
  if (!canAnimate(flags) || !isTerminal({ json: flags.json })) return createReporter(Boolean(flags.json));
  return createReporter(false, await import('@clack/prompts'));
}

/** What a command's work resolves to: nothing (exit 0) or an exit code of its own (add with a conflict: 3). */
type Work = Promise<number | void>;

function buildProgram(registry: ModuleRegistry, onDone: (work: Work) => void): Command {
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
    .option('--pack <pack>', 'load a template pack (repeatable): a folder, or an installed npm package with a gatekit field', collect, [])
    .showSuggestionAfterError(true)
    .enablePositionalOptions()
    .exitOverride();
  const togglesOf = addFeatureFlags(program, registry);
  program.action((directory: string | undefined, flags: GenerateFlags & Record<string, unknown>) => {
    onDone(
      reporterFor(flags).then((reporter) => runGenerate(directory, { ...flags, toggles: togglesOf(flags) }, registry, reporter)),
    );
  });

  program
    .command('list')
    .description('show every module with its category and version tag')
    .option('--json', 'print JSON')
    .option('--template-version <X.Y>', 'only modules available at this release')
    .option('--pack <pack>', 'load a template pack (repeatable): a folder, or an installed npm package with a gatekit field', collect, [])
    .exitOverride()
    .action((flags: ListFlags) => {
      onDone(Promise.resolve().then(() => runList(registry, flags, createReporter(Boolean(flags.json)))));
    });
  program
    .command('add')
    .description('add modules to an app made by Gatekit, keeping your edits')
    .argument('[modules...]', 'module ids (asked for in a terminal when none are given)')
    .option('--cwd <dir>', 'the app folder (default: the current folder)')
    .option('--dry-run', 'print the plan (added, rewritten, merged, conflicting files), write nothing')
    .option('--no-install', 'skip installing and migrating')
    .option('--json', 'print one JSON summary on stdout')
    .option('--pack <pack>', 'load a template pack (repeatable): a folder or an installed npm package; packs recorded in gatekit.json load by themselves', collect, [])
    .exitOverride()
    .action((ids: string[], flags: AddFlags) => {
      onDone(reporterFor(flags).then((reporter) => runAdd(ids, flags, registry, reporter)));
    });

  program
    .command('upgrade')
    .description('bring an app made by an earlier release (4.0 or later) to this release, keeping your edits')
    .option('--cwd <dir>', 'the app folder (default: the current folder)')
    .option('--dry-run', 'print the plan (added, rewritten, merged, removed, conflicting files; the migration), write nothing')
    .option('--json', 'print one JSON summary on stdout')
    .option('--force', 'upgrade even when the app has uncommitted changes in git')
    .option('--pack <pack>', 'load a template pack (repeatable); packs recorded in gatekit.json load by themselves', collect, [])
    .exitOverride()
    .action((flags: UpgradeFlags) => {
      onDone(reporterFor(flags).then((reporter) => runUpgrade(flags, registry, reporter)));
    });

  const pack = program.command('pack').description('work on template packs').exitOverride();
  pack
    .command('check')
    .description('validate a pack, render it against sample selections, check its migrations and type-check the result')
    .argument('<dir>', 'the pack folder')
    .option('--write-migrations', 'write each module\'s migration SQL made by the schema engine instead of only comparing')
    .option('--no-typecheck', 'skip installing the sample app, tsc and its tests')
    .option('--postgres-url <url>', 'PostgreSQL server the schema engine diffs against (default GATEKIT_TEST_POSTGRES_URL or the local one)')
    .exitOverride()
    .action((dir: string, flags: PackCheckFlags) => {
      onDone(runPackCheck(dir, flags, createReporter(false)));
    });
  return program;
}

/** The error's code in the --json error object. */
function errorCode(error: unknown): string {
  if (error instanceof CommanderError) return 'usage';
  if (error instanceof UsageError || error instanceof ManifestError) return 'usage';
  if (error instanceof CancelledError || error instanceof InterruptedError) return 'interrupted';
  if (error instanceof StepError) return 'step-failed';
  return 'unexpected';
}

/** Prints the failure for people (stderr) and returns the exit code. */
function describeFailure(error: unknown): { code: number; message: string } {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return { code: 0, message: '' };
    // commander already printed its message; usage errors exit 2
    return { code: 2, message: error.message.replace(/^error: /, '') };
  }
  if (error instanceof CancelledError) {
    // The prompt already printed its one line.
    return { code: 130, message: error.message };
  }
  if (error instanceof UsageError || error instanceof ManifestError) {
    process.stderr.write(`create-gatekit: ${error.message}\n`);
    return { code: 2, message: error.message };
  }
  if (error instanceof InterruptedError) {
    process.stderr.write(`create-gatekit: interrupted during '${error.step}'. ${error.message}\n`);
    if (error.retry) process.stderr.write(`To finish: ${error.retry}\n`);
    return { code: 130, message: `${error.message}${error.retry ? ` To finish: ${error.retry}` : ''}` };
  }
  if (error instanceof StepError) {
    process.stderr.write(`create-gatekit: step '${error.step}' failed: ${error.message}\n`);
    if (error.retry) process.stderr.write(`To retry: ${error.retry}\n`);
    return { code: 1, message: `step '${error.step}' failed: ${error.message}${error.retry ? ` To retry: ${error.retry}` : ''}` };
  }
  process.stderr.write(`create-gatekit: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`);
  return { code: 1, message: (error as Error)?.message ?? String(error) };
}

function report(error: unknown, json: boolean): number {
  const { code, message } = describeFailure(error);
  if (json && code !== 0) process.stdout.write(`${JSON.stringify({ error: { code: errorCode(error), message } }, null, 2)}\n`);
  return code;
}

/** `help` and `help <command...>` are `--help` and `<command...> --help`. */
function helpAsFlag(argv: string[]): string[] {
  return argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
}

/**
 * Output into a closed pipe (`create-gatekit list | head -1`) ends the run quietly: whoever reads
 * has what they wanted. Other write errors are left to Node.
 */
function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}

/** Runs the CLI and resolves to the exit code. */
export async function main(argvGiven: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  const argv = helpAsFlag(argvGiven);
  const json = argv.includes('--json');
  let work: Work = Promise.resolve();
  try {
    const program = buildProgram(loadRegistry(argv), (promise) => {
      work = promise;
    });
    await program.parseAsync(argv, { from: 'user' });
    return (await work) ?? 0;
  } catch (error) {
    return report(error, json);
  }
}
