import type { PartialChoices } from '../core/choices.js';
import { UsageError } from '../core/errors.js';
import { DATABASES, type LoadedModule } from '../core/manifest.js';
import { choosableModules, flaggedModules, supportsDatabase, type ChoosableCategory } from '../core/choosable-modules.js';
import { developmentApiUrl } from '../core/compose-env.js';
import { oauthCallbackUrl } from '../core/generate-project.js';
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
}

/** Asks, with @clack/prompts, only for what flags and the config file left open. */
export async function askForChoices(
  registry: ModuleRegistry,
  known: PartialChoices & { directory?: string; templateVersion: string },
): Promise<PromptAnswers> {
  const prompts = await import('@clack/prompts');
  const answers: PromptAnswers = {};
  const check = <T>(value: T | symbol): Exclude<T, symbol> => {
    if (prompts.isCancel(value)) {
      prompts.cancel('Cancelled; nothing was written.');
      throw new UsageError('Cancelled at a prompt; nothing was written.');
    }
    return value as Exclude<T, symbol>;
  };
  const available = (category: ChoosableCategory): LoadedModule[] => choosableModules(registry, { category, templateVersion: known.templateVersion });
  const options = (modules: LoadedModule[]) =>
    modules.map(({ manifest }) => ({ value: manifest.id, label: manifest.name, hint: manifest.description }));

  prompts.intro('create-gatekit');
  if (!known.directory) {
    answers.directory = check(
      await prompts.text({
        message: 'Where should the app go?',
        placeholder: 'my-app',
        validate: (value) => (value?.trim() ? undefined : 'Give a directory name.'),
      }),
    ).trim();
  }
  if (!known.auth) {
    answers.auth = check(
      await prompts.multiselect({ message: 'Direct sign-in methods', options: options(available('direct')), initialValues: ['jwt'], required: false }),
    );
  }
  const oauth = available('oauth');
  // The base module's API_URL and PORT; neither depends on the database, not asked yet.
  const apiUrl = developmentApiUrl([registry.modules.get(BASE_MODULE_ID)!], 'sqlite');
  if (!known.oauth && oauth.length > 0) {
    answers.oauth = check(
      await prompts.multiselect({ message: 'OAuth providers (space to select, enter when done)', options: oauth.map((module) => oauthOption(module, apiUrl)), required: false, maxItems: 8 }),
    );
  }
  const hosted = available('hosted');
  if (!known.hosted && hosted.length > 0) {
    answers.hosted = check(await prompts.multiselect({ message: 'Hosted services', options: options(hosted), required: false }));
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
