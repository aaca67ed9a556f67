import type { FileChange } from './plan-add.js';

type PackageJson = Record<string, unknown>;

/** Fields merged entry by entry: each script, package and forced version on its own. */
const SECTIONS = ['scripts', 'dependencies', 'devDependencies', 'overrides', 'resolutions'] as const;
/** Sections kept sorted by name, as the generator writes them. */
const SORTED = new Set<string>(['dependencies', 'devDependencies']);

function sortedKeys(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One value merged by meaning: the new render's when the user left it as the last render had it
 * (`undefined` for a value the new render no longer has: removed), the user's own otherwise.
 */
function mergedValue(mine: unknown, old: unknown, theirs: unknown): { value: unknown; changed: boolean } {
  if (same(old, theirs) || same(mine, theirs)) return { value: mine, changed: false };
  if (mine !== undefined && !same(mine, old)) return { value: mine, changed: false }; // the user's own choice wins
  if (mine === undefined && old !== undefined) return { value: mine, changed: false }; // the user removed it
  return { value: theirs, changed: true };
}

/**
 * package.json is merged as JSON, not as text: every script, package and forced version the new
 * render adds, changes or drops compared with the last render is set (or removed), unless the user
 * changed that entry themselves; other fields (engines) likewise as a whole. The user's own entries
 * and fields stay as they are. `add` only ever adds; `upgrade` also moves a package between
 * dependencies and devDependencies, or drops a script a release no longer has.
 */
export function mergePackageJson(user: string | undefined, base: string, next: string): FileChange | undefined {
  if (user === undefined || user === base) return user === next ? undefined : { file: 'package.json', kind: user === undefined ? 'added' : 'rewritten', content: next };
  let mine: PackageJson;
  try {
    mine = JSON.parse(user) as PackageJson;
  } catch (error) {
    return {
      file: 'package.json',
      kind: 'conflict',
      content: next,
      proposalFile: 'package.json.gatekit-new',
      action: `package.json is not valid JSON (${(error as Error).message}); fix it, then copy the new entries from package.json.gatekit-new`,
    };
  }
  const old = JSON.parse(base) as PackageJson;
  const theirs = JSON.parse(next) as PackageJson;
  let changed = false;
  const merged: PackageJson = { ...mine };
  for (const key of new Set([...Object.keys(theirs), ...Object.keys(old)])) {
    if ((SECTIONS as readonly string[]).includes(key)) continue;
    const one = mergedValue(mine[key], old[key], theirs[key]);
    if (!one.changed) continue;
    changed = true;
    if (one.value === undefined) delete merged[key];
    else merged[key] = one.value;
  }
  for (const section of SECTIONS) {
    const [mineSection, oldSection, theirSection] = [asRecord(mine[section]), asRecord(old[section]), asRecord(theirs[section])];
    const entries = { ...mineSection };
    for (const name of new Set([...Object.keys(theirSection), ...Object.keys(oldSection)])) {
      const one = mergedValue(mineSection[name], oldSection[name], theirSection[name]);
      if (!one.changed) continue;
      changed = true;
      if (one.value === undefined) delete entries[name];
      else entries[name] = one.value;
    }
    if (mine[section] === undefined && Object.keys(entries).length === 0) continue;
    merged[section] = SORTED.has(section) ? sortedKeys(entries) : entries;
  }
  if (!changed) return undefined;
  return { file: 'package.json', kind: 'merged', content: `${JSON.stringify(merged, null, 2)}\n` };
}
