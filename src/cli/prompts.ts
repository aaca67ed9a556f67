import type { PartialChoices } from '../core/choices.js';
import { CancelledError } from '../core/errors.js';
import { projectNameProblem } from '../core/project-name.js';
import { isEmptyDirectory, targetProblem } from '../core/write-tree.js';
import { DATABASES, type LoadedModule } from '../core/manifest.js';
import { choosableModules, flaggedModules, supportsDatabase, type ChoosableCategory } from '../core/choosable-modules.js';
import { developmentApiUrl } from '../core/compose-env.js';
import { oauthCallbackUrl } from '../core/next-steps.js';
import type { ModuleRegistry } from '../core/registry.js';
import { BASE_MODULE_ID } from '../core/resolve-selection.js';

/**
 * Each database with whether the base app supports it: one without committed migrations for every
 * module that owns tables is shown as unavailable, with the reason, instead of failing later.
 */
export function databaseOptions(registry: ModuleRegistry) {
  const base = registry.modules.get(BASE_MODULE_ID);
  return DATABASES.map((db) => {
    const ready = base !== undefined && supportsDatabase(base, db);
    return ready
      ? { value: db, label: db, ...(db === 'sqlite' ? { hint: 'embedded, nothing to install' } : {}) }
      : { value: db, label: db, hint: 'unavailable: no migrations for it yet (Prisma\'s offline schema engine has no MySQL connector)', disabled: true };
  });
}

/** An OAuth provider's option: its name, with the callback URL to register at the provider as the hint. */
export function oauthOption(module: LoadedModule, apiUrl: string) {
  const { id, name } = module.manifest;
  const pack = module.source === 'built-in' ? '' : ` (pack ${module.source})`;
  return { value: id, label: `${name}${pack}`, hint: `callback ${oauthCallbackUrl(apiUrl, { id })}` };
}

export interface PromptAnswers extends PartialChoices {
  directory?: string;
  /** The user confirmed writing into a non-empty directory (as --force). */
  force?: boolean;
}

const DEFAULT_DIRECTORY = 'my-app';

type Clack = typeof import('@clack/prompts');

/** The answer, or, on Ctrl-C or Escape, one line and exit 130 (nothing is written before the prompts end). */
function answerOf<T>(prompts: Clack, value: T | symbol): Exclude<T, symbol> {
  if (prompts.isCancel(value)) {
    prompts.cancel('Cancelled; nothing was written.');
    throw new CancelledError('Cancelled at a prompt; nothing was written.');
  }
  return value as Exclude<T, symbol>;
}

/** Why a typed directory cannot take the app (checked as it is typed), else undefined. Empty takes the default. */
export function directoryProblem(typed: string | undefined): string | undefined {
  const directory = typed?.trim() || DEFAULT_DIRECTORY;
  return projectNameProblem(directory) ?? targetProblem(directory);
}

/** The directory, asked until it is usable: a non-empty one only when the user confirms writing into it. */
async function askForDirectory(prompts: Clack): Promise<{ directory: string; force: boolean }> {
  for (;;) {
    const directory =
      answerOf(
        prompts,
        await prompts.text({ message: 'Where should the app go?', placeholder: DEFAULT_DIRECTORY, defaultValue: DEFAULT_DIRECTORY, validate: directoryProblem }),
      ).trim() || DEFAULT_DIRECTORY;
    if (isEmptyDirectory(directory)) return { directory, force: false };
    const overwrite = answerOf(
      prompts,
      await prompts.confirm({ message: `${directory} is not empty. Write into it anyway? (files Gatekit generates are overwritten; yours are kept)`, initialValue: false }),
    );
    if (overwrite) return { directory, force: true };
  }
}

/** Whether these module ids include a way to sign in (not only a second factor such as totp). */
function signsIn(registry: ModuleRegistry, ids: string[]): boolean {
  return ids.some((id) => {
    if (id === 'all') return true; // --oauth all
    const module = registry.modules.get(id);
    return module !== undefined && !module.manifest.secondFactorOnly;
  });
}

/** Asks for a PostgreSQL DATABASE_URL; `problem` checks each answer (reaching the server) before it is taken. */
export async function askForDatabaseUrl(problem: (url: string) => Promise<string | undefined>): Promise<string> {
  const prompts = await import('@clack/prompts');
  const url = answerOf(
    prompts,
    await prompts.text({
      message: 'DATABASE_URL of a running PostgreSQL server (install and migrations need it)',
      placeholder: 'postgresql://postgres:postgres@localhost:5432/app',
      validate: (value) => (value?.trim() ? problem(value.trim()) : 'Give the URL of a running PostgreSQL server, or press Ctrl-C and run again with --no-install.'),
    }),
  );
  return url.trim();
}

/** Asks, with @clack/prompts, only for what flags and the config file left open; each answer is checked as it is given. */
export async function askForChoices(
  registry: ModuleRegistry,
  known: PartialChoices & { directory?: string; templateVersion: string },
): Promise<PromptAnswers> {
  const prompts = await import('@clack/prompts');
  const answers: PromptAnswers = {};
  const check = <T>(value: T | symbol): Exclude<T, symbol> => answerOf(prompts, value);
  const available = (category: ChoosableCategory): LoadedModule[] => choosableModules(registry, { category, templateVersion: known.templateVersion });
  const options = (modules: LoadedModule[]) =>
    modules.map(({ manifest }) => ({ value: manifest.id, label: manifest.name, hint: manifest.description }));

  prompts.intro('create-gatekit');
  if (!known.directory) Object.assign(answers, await askForDirectory(prompts));
  const oauth = available('oauth');
  const hosted = available('hosted');
  // The base module's API_URL and PORT; neither depends on the database, not asked yet.
  const apiUrl = developmentApiUrl([registry.modules.get(BASE_MODULE_ID)!], 'sqlite');
  const asksForMethods = !known.auth || (!known.oauth && oauth.length > 0) || (!known.hosted && hosted.length > 0);
  for (;;) {
    if (!known.auth) {
      answers.auth = check(
        await prompts.multiselect({ message: 'Direct sign-in methods', options: options(available('direct')), initialValues: answers.auth ?? ['jwt'], required: false }),
      );
    }
    if (!known.oauth && oauth.length > 0) {
      answers.oauth = check(
        await prompts.multiselect({ message: 'OAuth providers (space to select, enter when done)', options: oauth.map((module) => oauthOption(module, apiUrl)), required: false, maxItems: 8 }),
      );
    }
    if (!known.hosted && hosted.length > 0) {
      answers.hosted = check(await prompts.multiselect({ message: 'Hosted services', options: options(hosted), required: false }));
    }
    const methods = [...(known.auth ?? answers.auth ?? []), ...(known.oauth ?? answers.oauth ?? []), ...(known.hosted ?? answers.hosted ?? [])];
    if (!asksForMethods || signsIn(registry, methods)) break;
    prompts.log.warn('Choose at least one way to sign in: a direct method, an OAuth provider or a hosted service (a second factor such as totp is not one on its own).');
  }
  const features = available('module').filter((module) => !module.manifest.flag);
  if (!known.modules && features.length > 0) {
    answers.modules = check(await prompts.multiselect({ message: 'Feature modules', options: options(features), required: false }));
  }
  const toggles: Record<string, boolean> = {};
  for (const { manifest } of flaggedModules(registry, known.templateVersion)) {
    if (!manifest.flag || known.toggles?.[manifest.id] !== undefined || known.modules?.includes(manifest.id)) continue;
    toggles[manifest.id] = check(await prompts.confirm({ message: manifest.flag.prompt, initialValue: manifest.flag.default }));
  }
  if (Object.keys(toggles).length > 0) answers.toggles = toggles;
  if (!known.db) {
    answers.db = check(
      await prompts.select({ message: 'Database', options: databaseOptions(registry), initialValue: 'sqlite' as const }),
    );
  }
  if (known.install === undefined) {
    answers.install = check(await prompts.confirm({ message: 'Install dependencies and prepare the database now?', initialValue: true }));
  }
  return answers;
}
