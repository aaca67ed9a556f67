import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from './errors.js';
import { DATABASES, formatIssues, type Database } from './manifest.js';
import { CURRENT_RELEASE } from './releases.js';
import { closestMatch } from './suggest.js';

export const PACKAGE_MANAGERS = ['npm', 'pnpm', 'yarn', 'bun'] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** How a package script is run with each package manager: "npm run dev", "pnpm dev". */
export function runCommand(pm: PackageManager): string {
  return pm === 'npm' || pm === 'bun' ? `${pm} run` : pm;
}

/** Everything a user decides about a new project. */
export interface Choices {
  auth: string[];
  oauth: string[];
  hosted: string[];
  /** Feature modules (category module) asked for by id, on top of the default-on ones (--modules). */
  modules: string[];
  /**
   * Feature modules switched on or off by their own flag (--orgs, --no-pages; "pages": false in a
   * config file). A module left out here takes its manifest's default.
   */
  toggles: Record<string, boolean>;
  db: Database;
  templateVersion: string;
  pm: PackageManager;
  install: boolean;
  git: boolean;
}

export type PartialChoices = Partial<Choices>;

const idList = z.union([z.array(z.string()), z.string().transform((value) => splitIds(value))]);

/** The --config file: the same choices as the flags. Unknown keys are an error, so typos are caught. */
export const configFileSchema = z.strictObject({
  $schema: z.string().optional(),
  auth: idList.optional(),
  oauth: idList.optional(),
  hosted: idList.optional(),
  modules: idList.optional(),
  db: z.enum(DATABASES).optional(),
  templateVersion: z.string().optional(),
  pm: z.enum(PACKAGE_MANAGERS).optional(),
  install: z.boolean().optional(),
  git: z.boolean().optional(),
  /** Template packs (folders or npm package names), loaded like --pack before anything else is read. */
  packs: z.array(z.string()).optional(),
});

export function splitIds(value: string): string[] {
  return value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}

/** Each mistake in a config file in a person's words: the key, what it holds, what it should hold. */
function configProblems(error: z.ZodError, json: unknown, keys: string[]): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `unknown key '${key}'${closestMatch(key, keys) ? ` (did you mean '${closestMatch(key, keys)}'?)` : ''}`).join('; ');
      }
      const key = issue.path[0];
      const value = typeof key === 'string' && json && typeof json === 'object' ? (json as Record<string, unknown>)[key] : undefined;
      if (issue.code === 'invalid_type' && issue.path.length === 1 && value !== undefined) return `${String(key)}: expected ${issue.expected === 'boolean' ? 'true or false' : issue.expected}, got ${JSON.stringify(value)}`;
      if (issue.code === 'invalid_value' && issue.path.length === 1) return `${String(key)}: ${JSON.stringify(value)} is not one of ${issue.values.map(String).join(', ')}`;
      return formatIssues(new z.ZodError([issue]));
    })
    .join('; ');
}

/**
 * Reads a --config file. `flagIds` are the feature modules with their own flag: each is a boolean
 * key of the file ("orgs": false), like --orgs / --no-orgs.
 */
export function readConfigFile(file: string, flagIds: string[] = []): PartialChoices {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? (error as Error).message);
    throw new UsageError(`Cannot read config file '${file}': ${reason}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Config file '${file}' is not valid JSON: ${(error as Error).message}.`);
  }
  const schema = configFileSchema.extend(Object.fromEntries(flagIds.map((id) => [id, z.boolean().optional()])));
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const keys = Object.keys(schema.shape).filter((key) => key !== '$schema');
    throw new UsageError(`Config file '${file}' is invalid (${configProblems(parsed.error, json, keys)}). Valid keys: ${keys.join(', ')}.`);
  }
  const { $schema: _ignored, packs: _loadedEarlier, ...values } = parsed.data as Record<string, unknown>;
  const toggles: Record<string, boolean> = {};
  const choices: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (flagIds.includes(key)) toggles[key] = value as boolean;
    else choices[key] = value;
  }
  return { ...(choices as PartialChoices), ...(Object.keys(toggles).length > 0 ? { toggles } : {}) };
}

/** The packs a config file names (read before the registry exists; the file is validated later). */
export function packsInConfigFile(file: string): string[] {
  try {
    const packs = (JSON.parse(readFileSync(file, 'utf8')) as { packs?: unknown }).packs;
    return Array.isArray(packs) ? packs.filter((pack): pack is string => typeof pack === 'string') : [];
  } catch {
    return [];
  }
}

/** Config file keys (and so flag names) a feature module's own flag must not take. */
export function isReservedFlagName(id: string): boolean {
  return id in configFileSchema.shape;
}

/** The package manager that launched us (npm_config_user_agent), else npm. */
export function detectPackageManager(userAgent = process.env.npm_config_user_agent ?? ''): PackageManager {
  const name = userAgent.split('/')[0];
  return (PACKAGE_MANAGERS as readonly string[]).includes(name ?? '') ? (name as PackageManager) : 'npm';
}

export function defaultChoices(): Choices {
  return {
    auth: ['jwt'],
    oauth: [],
    hosted: [],
    modules: [],
    toggles: {},
    db: 'sqlite',
    templateVersion: CURRENT_RELEASE,
    pm: detectPackageManager(),
    install: true,
    git: true,
  };
}

/** Stacks layers of choices; a later layer wins wherever it sets a value (toggles: per module). */
export function overlayChoices(...layers: PartialChoices[]): PartialChoices {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      merged[key] = key === 'toggles' ? { ...(merged.toggles as object), ...(value as object) } : value;
    }
  }
  return merged as PartialChoices;
}

/** defaults < config file < flags < prompt answers. */
export function mergeChoices(...layers: PartialChoices[]): Choices {
  return { ...defaultChoices(), ...overlayChoices(...layers) };
}
