import type { FileChange } from './plan-add.js';

type PackageJson = Record<string, unknown> & { scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

const SECTIONS = ['scripts', 'dependencies', 'devDependencies'] as const;

function sortedKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * package.json is merged as JSON, not as text: every script and package the new render adds (or
 * changes) compared with the last render is set, unless the user already changed that entry; the
 * user's own entries and other fields stay as they are.
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
  for (const section of SECTIONS) {
    const wanted = theirs[section] ?? {};
    const merged = { ...(mine[section] ?? {}) };
    for (const [name, value] of Object.entries(wanted)) {
      const before = old[section]?.[name];
      if (before === value || merged[name] === value) continue;
      if (merged[name] !== undefined && merged[name] !== before) continue; // the user's own choice wins
      merged[name] = value;
      changed = true;
    }
    mine[section] = section === 'scripts' ? merged : sortedKeys(merged);
  }
  if (!changed) return undefined;
  return { file: 'package.json', kind: 'merged', content: `${JSON.stringify(mine, null, 2)}\n` };
}
