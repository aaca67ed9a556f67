import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Choices } from './choices.js';
import type { Category, Database, LoadedModule } from './manifest.js';
import type { ModuleRegistry } from './registry.js';
import { isAvailableAt } from './releases.js';

/** The categories a user chooses modules in (base is always there). */
export type ChoosableCategory = Exclude<Category, 'base'>;

/** The field of Choices each category's modules are chosen in; its flag is `--<field>` (--auth, --oauth, ...). */
export const CHOICES_FIELD = {
  direct: 'auth',
  oauth: 'oauth',
  hosted: 'hosted',
  module: 'modules',
} as const satisfies Record<ChoosableCategory, keyof Choices>;

/** The modules' part of Choices: what gatekit.json records and the reproducing command names. */
export type ModuleChoices = Pick<Choices, 'auth' | 'oauth' | 'hosted' | 'modules' | 'toggles'>;

/** Whether every module that owns tables ships a migration for `db`. */
export function supportsDatabase(module: LoadedModule, db: Database): boolean {
  return !module.manifest.migrations || existsSync(path.join(module.dir, module.manifest.migrations, `${db}.sql`));
}

/** A module a user can ask for: not the base, not an internal building block (those come only through `requires`). */
export function isChoosable(module: LoadedModule): boolean {
  return module.manifest.category !== 'base' && !module.manifest.internal;
}

export interface ChoosableFilter {
  /** Only this category. */
  category?: ChoosableCategory;
  /** Only modules this release offers. */
  templateVersion?: string;
  /** Only modules with migrations for this database. */
  db?: Database;
}

/** The modules a user can choose (in a category, at a template version, for a database), in registry order. */
export function choosableModules(registry: ModuleRegistry, filter: ChoosableFilter = {}): LoadedModule[] {
  return [...registry.modules.values()].filter(
    (module) =>
      isChoosable(module) &&
      (filter.category === undefined || module.manifest.category === filter.category) &&
      (filter.templateVersion === undefined || isAvailableAt(module.manifest.tag, filter.templateVersion)) &&
      (filter.db === undefined || supportsDatabase(module, filter.db)),
  );
}

/** Feature modules with their own on/off flag (--orgs / --no-orgs) offered at a template version, in registry order. */
export function flaggedModules(registry: ModuleRegistry, templateVersion?: string): LoadedModule[] {
  return choosableModules(registry, { category: 'module', ...(templateVersion ? { templateVersion } : {}) }).filter(
    (module) => module.manifest.flag !== undefined,
  );
}

/** Adds one choosable module to the choices, in its category's field (a flagged feature module: switched on). */
export function chooseModule(choices: ModuleChoices, module: LoadedModule): void {
  const { id, category, flag } = module.manifest;
  if (category === 'base') throw new Error(`The base module is never chosen.`);
  if (flag) choices.toggles[id] = true;
  else choices[CHOICES_FIELD[category]].push(id);
}

/**
 * The choices that select exactly `modules` again: every choosable one in its category's field, and
 * every feature module with its own flag that the template version offers named on or off, so a
 * later change of defaults does not change what they make.
 */
export function choicesSelecting(modules: LoadedModule[], registry: ModuleRegistry, templateVersion: string): ModuleChoices {
  const choices: ModuleChoices = { auth: [], oauth: [], hosted: [], modules: [], toggles: {} };
  for (const module of flaggedModules(registry, templateVersion)) choices.toggles[module.manifest.id] = false;
  for (const module of modules) if (isChoosable(module)) chooseModule(choices, module);
  return choices;
}
