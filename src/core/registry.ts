import { existsSync, readdirSync, readlinkSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { ManifestError } from './errors.js';
import { loadModule, MANIFEST_FILE, type LoadedModule } from './manifest.js';
import type { PackRef, ResolvedPack } from './packs.js';
import { currentReleaseProfile, type ReleaseProfile } from './release-profile.js';

export interface ModuleRegistry {
  modules: Map<string, LoadedModule>;
  /** The packs loaded with --pack (or recorded in an app's gatekit.json), in the order given. */
  packs: PackRef[];
  /** The release whose built-in modules these are: its version table and generator version render with them. */
  release: ReleaseProfile;
}

/**
 * Loads every module folder (one with a gatekit.module.json) directly under a pack directory. A
 * symbolic link there is refused: it could make any folder on the machine a module of the pack.
 */
export function loadPackModules(packDir: string, source: string, options: { builtIn?: boolean } = {}): LoadedModule[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(packDir, { withFileTypes: true });
  } catch (error) {
    throw new ManifestError(`Cannot read the pack folder ${packDir}: ${(error as Error).message}`);
  }
  const link = entries.find((entry) => entry.isSymbolicLink());
  if (link) {
    const file = path.join(packDir, link.name);
    throw new ManifestError(`Invalid pack: ${file} is a symbolic link (to ${readlinkSync(file)}). A pack may not hold symbolic links: put the folder or file itself in the pack.`);
  }
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(path.join(packDir, entry.name, MANIFEST_FILE)))
    .map((entry) => loadModule(path.join(packDir, entry.name), source, options));
}

/** Loads a resolved pack's modules; a pack without any module folder is an error. */
export function loadPack(pack: ResolvedPack): LoadedModule[] {
  const modules = loadPackModules(pack.modulesDir, pack.ref.spec);
  if (modules.length === 0) {
    throw new ManifestError(
      `Pack '${pack.ref.spec}' (${pack.modulesDir}) has no module folders: each module is a folder with a ${MANIFEST_FILE}.`,
    );
  }
  return modules;
}

function describeOrigin(module: LoadedModule): string {
  return module.source === 'built-in' ? `the built-in module in ${module.dir}` : `pack '${module.source}' (${module.dir})`;
}

export function createRegistry(modules: LoadedModule[], packs: PackRef[] = [], release: ReleaseProfile = currentReleaseProfile()): ModuleRegistry {
  const map = new Map<string, LoadedModule>();
  for (const module of modules) {
    const existing = map.get(module.manifest.id);
    if (existing) {
      throw new ManifestError(
        `Module id '${module.manifest.id}' is declared twice: by ${describeOrigin(existing)} and by ${describeOrigin(module)}. A pack module's id may not equal a built-in's or another pack's; rename it in ${path.join(module.dir, MANIFEST_FILE)} (field "id").`,
      );
    }
    map.set(module.manifest.id, module);
  }
  for (const module of modules) {
    for (const required of module.manifest.requires) {
      if (!map.has(required)) {
        throw new ManifestError(`Module '${module.manifest.id}' requires '${required}', which no loaded pack provides.`);
      }
    }
  }
  return { modules: map, packs, release };
}

const builtin = new Map<string, LoadedModule[]>();

/** The built-in modules of a release: this one's (templates/), or an earlier one's frozen under releases/. */
export function loadReleaseModules(release: ReleaseProfile): LoadedModule[] {
  let modules = builtin.get(release.templatesDir);
  if (!modules) {
    modules = loadPackModules(release.templatesDir, 'built-in', { builtIn: true });
    builtin.set(release.templatesDir, modules);
  }
  return modules;
}

/** The modules Gatekit ships, written in the same pack format teams use. */
export function loadBuiltinModules(): LoadedModule[] {
  return loadReleaseModules(currentReleaseProfile());
}

/** How gatekit.json, `--json` and `add --json` name a module: its id, category and tag. */
export function moduleSummary({ manifest }: LoadedModule): { id: string; category: string; tag: string } {
  return { id: manifest.id, category: manifest.category, tag: manifest.tag };
}

/** The loaded packs that provide at least one of `modules`: what an app records and its command names. */
export function packsUsedBy(modules: LoadedModule[], registry: ModuleRegistry): PackRef[] {
  return registry.packs.filter((pack) => modules.some((module) => module.source === pack.spec));
}
