import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ManifestError, UsageError } from './errors.js';
import { isInside } from './links.js';
import { pathProblem } from './pack-files.js';

/** How gatekit.json records a pack, so `add` and the reproducing command find it again. */
export interface PackRef {
  /** What the user gave to --pack: a folder or an npm package name. */
  spec: string;
  /** For an npm package (or a folder with a package.json): its name and version. */
  name?: string;
  version?: string;
  /** For a folder: its absolute path when it was loaded. */
  path?: string;
}

export interface ResolvedPack {
  ref: PackRef;
  /** The folder holding the pack's module folders. */
  modulesDir: string;
}

/** package.json's `gatekit` field: `true`, or `{ "modules": "<folder>" }`. */
const gatekitFieldSchema = z.union([z.literal(true), z.strictObject({ modules: z.string().min(1).optional() })]);

function looksLikePath(spec: string): boolean {
  if (spec.startsWith('@')) return false; // a scoped package name: @team/gatekit-pack
  return spec.startsWith('.') || path.isAbsolute(spec) || spec.includes('/') || spec.includes(path.sep);
}

/** node_modules/<name> in `from` or any folder above it. */
function findInstalledPackage(name: string, from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function readPackageJson(dir: string): { name?: string; version?: string; gatekit?: unknown } | undefined {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ManifestError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A folder is a pack through its package.json's gatekit field, or as a plain folder of module folders. */
function packAt(dir: string, spec: string, requireField: boolean): ResolvedPack {
  const pkg = readPackageJson(dir);
  const file = path.join(dir, 'package.json');
  if (pkg?.gatekit === undefined) {
    if (requireField) {
      throw new ManifestError(
        `Package '${spec}' (${file}) is not a Gatekit pack: its package.json has no "gatekit" field. Valid values: true, or { "modules": "<folder of module folders>" }.`,
      );
    }
    return { ref: { spec, path: dir }, modulesDir: dir };
  }
  const field = gatekitFieldSchema.safeParse(pkg.gatekit);
  if (!field.success) {
    throw new ManifestError(
      `Invalid pack ${file}: field "gatekit" is ${JSON.stringify(pkg.gatekit)}. Valid values: true, or { "modules": "<folder of module folders>" }.`,
    );
  }
  const modules = field.data === true ? undefined : field.data.modules;
  const problem = modules === undefined ? undefined : pathProblem(modules);
  if (problem) {
    throw new ManifestError(
      `Invalid pack ${file}: field "gatekit.modules" '${modules}' ${problem}. Valid values: true, or { "modules": "<folder of module folders inside the package>" }.`,
    );
  }
  const modulesDir = modules === undefined ? dir : path.join(dir, modules);
  if (modules !== undefined) {
    // The package folder itself may be a link (pnpm installs packages as links); a folder inside it may not.
    const stat = lstatSync(modulesDir, { throwIfNoEntry: false });
    const linked = stat?.isSymbolicLink() || (stat && !isInside(realpathSync(dir), realpathSync(modulesDir)));
    if (!stat?.isDirectory() || linked) {
      const what = !stat ? 'which does not exist' : linked ? 'which is (or goes through) a symbolic link: a pack may not hold symbolic links' : 'which is not a folder';
      throw new ManifestError(`Invalid pack ${file}: field "gatekit.modules" names '${modules}', ${what}.`);
    }
  }
  const ref: PackRef = { spec, ...(pkg.name ? { name: pkg.name } : {}), ...(pkg.version ? { version: pkg.version } : {}) };
  return { ref: requireField ? ref : { ...ref, path: dir }, modulesDir };
}

/**
 * Finds a pack: a folder (relative to `from`), or the name of an npm package installed in `from`
 * or a folder above it (the app, or where create-gatekit runs).
 */
export function resolvePack(spec: string, from: string[]): ResolvedPack {
  for (const base of from) {
    const dir = path.resolve(base, spec);
    if (existsSync(dir) && statSync(dir).isDirectory() && (looksLikePath(spec) || !findInstalledPackage(spec, base))) {
      return packAt(dir, spec, false);
    }
    if (!looksLikePath(spec)) {
      const installed = findInstalledPackage(spec, base);
      if (installed) return packAt(installed, spec, true);
    }
  }
  throw new UsageError(
    `--pack '${spec}' is neither a folder nor an installed npm package (looked in ${from.map((base) => path.resolve(base)).join(' and ')}). Give a pack folder, or install the pack first: npm install --save-dev ${spec}.`,
  );
}

/** Where to look for a recorded pack again: its absolute path if it still exists, else its spec. */
export function recordedPackSpec(ref: PackRef): string {
  return ref.path && existsSync(ref.path) ? ref.path : ref.spec;
}
