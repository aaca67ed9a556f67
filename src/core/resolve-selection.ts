import type { Choices } from './choices.js';
import { CHOICES_FIELD, choosableModules, isChoosable, supportsDatabase, type ChoosableCategory } from './choosable-modules.js';
import { UsageError } from './errors.js';
import type { LoadedModule } from './manifest.js';
import type { ModuleRegistry } from './registry.js';
import { CATEGORIES } from './manifest.js';
import { isAvailableAt, RELEASES } from './releases.js';
import { didYouMean } from './suggest.js';

export const BASE_MODULE_ID = 'base';

/** Refuses a --template-version that is not a release, naming the valid ones. */
export function checkTemplateVersion(templateVersion: string): void {
  if (!(RELEASES as readonly string[]).includes(templateVersion)) {
    throw new UsageError(
      `Unknown --template-version '${templateVersion}'. ${didYouMean(templateVersion, RELEASES)}Valid releases: ${RELEASES.join(', ')}.`,
    );
  }
}

function pick(
  registry: ModuleRegistry,
  category: ChoosableCategory,
  ids: string[],
  templateVersion: string,
): LoadedModule[] {
  const flag = `--${CHOICES_FIELD[category]}`;
  const validIds = choosableModules(registry, { category }).map((module) => module.manifest.id);
  if (category === 'oauth' && ids.length === 1 && ids[0] === 'none') return [];
  if (category === 'oauth' && ids.length === 1 && ids[0] === 'all') return choosableModules(registry, { category, templateVersion });
  return ids.map((id) => {
    const module = registry.modules.get(id);
    if (!module || module.manifest.category !== category || !isChoosable(module)) {
      const valid = validIds.length > 0 ? validIds.join(', ') : 'none yet';
      const extra = category === 'oauth' ? ', all, none' : '';
      throw new UsageError(`Unknown ${flag} id '${id}'. ${didYouMean(id, validIds)}Valid ids: ${valid}${extra}.`);
    }
    if (!isAvailableAt(module.manifest.tag, templateVersion)) {
      throw new UsageError(
        `'${id}' first shipped in release ${module.manifest.tag}, but --template-version ${templateVersion} offers only modules tagged ${templateVersion} or older. Use --template-version ${module.manifest.tag} or newer.`,
      );
    }
    return module;
  });
}

/**
 * Feature modules: those asked for by id (--modules), plus each one with its own flag that the
 * user switched on (--orgs) or that is on by default and offered at the template version, minus
 * those switched off (--no-orgs). Registry order, whatever order they were asked in.
 */
function pickFeatures(registry: ModuleRegistry, choices: Choices): LoadedModule[] {
  const { templateVersion, toggles } = choices;
  const chosen = new Set(pick(registry, 'module', choices.modules, templateVersion));
  for (const [id, on] of Object.entries(toggles)) {
    const module = registry.modules.get(id);
    const flag = module?.manifest.flag;
    if (!module || !flag) throw new UsageError(`Unknown flag --${on ? '' : 'no-'}${id}: no feature module '${id}' has its own flag.`);
    if (!on && chosen.has(module)) throw new UsageError(`--modules ${id} and --no-${id} contradict each other; give one of them.`);
    if (on && !isAvailableAt(module.manifest.tag, templateVersion)) {
      throw new UsageError(
        `--${id} needs ${module.manifest.name}, first shipped in release ${module.manifest.tag}; --template-version ${templateVersion} does not offer it. Use --no-${id} or a newer --template-version.`,
      );
    }
  }
  const features = choosableModules(registry, { category: 'module' });
  for (const module of features) {
    const { id, flag, tag } = module.manifest;
    if (flag && (toggles[id] ?? (flag.default && isAvailableAt(tag, templateVersion)))) chosen.add(module);
  }
  return features.filter((module) => chosen.has(module));
}

/**
 * Turns the user's choices into the ordered list of modules to render:
 * base first, then every module after the modules it requires.
 */
export function resolveSelection(choices: Choices, registry: ModuleRegistry): LoadedModule[] {
  checkTemplateVersion(choices.templateVersion);
  const requested = [
    ...pick(registry, 'direct', choices.auth, choices.templateVersion),
    ...pick(registry, 'oauth', choices.oauth, choices.templateVersion),
    ...pick(registry, 'hosted', choices.hosted, choices.templateVersion),
  ];
  if (requested.every((module) => module.manifest.secondFactorOnly || module.manifest.existingAccountsOnly)) {
    const why = (only: LoadedModule[], what: string) => (only.length > 0 ? [`${only.map((module) => module.manifest.id).join(', ')} ${what}`] : []);
    const reasons = [
      ...why(requested.filter((module) => module.manifest.secondFactorOnly), 'is a second factor only'),
      ...why(requested.filter((module) => module.manifest.existingAccountsOnly), 'only signs in accounts made another way'),
    ];
    throw new UsageError(
      `Choose at least one way to sign in: --auth jwt,magic-link, --oauth <providers> or --hosted <services>${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}.`,
    );
  }
  requested.push(...pickFeatures(registry, choices));

  const base = registry.modules.get(BASE_MODULE_ID);
  if (!base) throw new Error(`The '${BASE_MODULE_ID}' module is missing from the templates.`);

  const ordered: LoadedModule[] = [];
  const visiting = new Set<string>();
  const visit = (module: LoadedModule): void => {
    const { id } = module.manifest;
    if (ordered.includes(module)) return;
    if (visiting.has(id)) throw new UsageError(`Modules require each other in a cycle through '${id}'.`);
    visiting.add(id);
    for (const requiredId of module.manifest.requires) {
      const required = registry.modules.get(requiredId)!;
      if (!isAvailableAt(required.manifest.tag, choices.templateVersion)) {
        throw new UsageError(
          `'${id}' requires '${requiredId}', first shipped in release ${required.manifest.tag}; use a newer --template-version.`,
        );
      }
      visit(required);
    }
    visiting.delete(id);
    ordered.push(module);
  };
  visit(base);
  const categoryIndex = (module: LoadedModule) => CATEGORIES.indexOf(module.manifest.category);
  const unique = [...new Set(requested)].sort((a, b) => categoryIndex(a) - categoryIndex(b));
  unique.forEach(visit);
  addCompanions(registry, choices.templateVersion, ordered, visit);
  checkDatabaseSupport(ordered, choices.db);
  return ordered;
}

/**
 * Adds the internal modules that join the selection by themselves (`selectedWith`), each once every
 * module it names is in: organization API keys with api-keys and orgs. A companion may complete the
 * list for another, so this runs until nothing more joins.
 */
function addCompanions(registry: ModuleRegistry, templateVersion: string, ordered: LoadedModule[], visit: (module: LoadedModule) => void): void {
  const chosen = () => new Set(ordered.map((module) => module.manifest.id));
  for (let added = true; added; ) {
    added = false;
    for (const module of registry.modules.values()) {
      const { selectedWith, tag } = module.manifest;
      if (selectedWith.length === 0 || ordered.includes(module) || !isAvailableAt(tag, templateVersion)) continue;
      const ids = chosen();
      if (selectedWith.every((id) => ids.has(id))) {
        visit(module);
        added = true;
      }
    }
  }
}

/** Every module that owns tables must ship a migration for the chosen database. */
function checkDatabaseSupport(modules: LoadedModule[], db: Choices['db']): void {
  const unsupported = modules.filter((module) => module.manifest.migrations && !supportsDatabase(module, db));
  if (unsupported.length === 0) return;
  const ids = unsupported.map((module) => module.manifest.id).join(', ');
  throw new UsageError(`--db ${db} is not supported yet by: ${ids}. Choose --db sqlite or --db postgresql.`);
}
