import { composeEnv, readOn } from './compose-env.js';
import type { Database, LoadedModule } from './manifest.js';

/** The variables a .env sets, with their values (quotes removed). */
export function envValuesIn(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) values[match[1]!] = match[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return values;
}

/**
 * The development .env with the added modules' variables that it lacks appended (secrets freshly
 * generated); a variable the user already set is left as it is. No .env: nothing to do.
 */
export function appendMissingEnv(current: string | undefined, added: LoadedModule[], db: Database) {
  if (current === undefined) return undefined;
  const present = new Set(Object.keys(envValuesIn(current)));
  const blocks: string[] = [];
  const names: string[] = [];
  for (const module of added) {
    const missing = module.manifest.env.filter((variable) => readOn(variable, db) && !present.has(variable.name));
    if (missing.length === 0) continue;
    const dev = composeEnv([{ ...module, manifest: { ...module.manifest, env: missing } }], db).dev;
    blocks.push(dev.split('\n').slice(2).join('\n').trimEnd());
    names.push(...missing.map((variable) => variable.name));
  }
  if (names.length === 0) return undefined;
  const content = `${current.trimEnd()}\n\n${blocks.join('\n\n')}\n`;
  return { kind: 'merged' as const, content, names };
}

/** A variable with the comment lines right above it, or one other line (blank, a lone comment). */
interface EnvItem {
  name?: string;
  comments: string[];
  line: string;
}

function envItems(lines: string[]): EnvItem[] {
  const items: EnvItem[] = [];
  let comments: string[] = [];
  for (const line of lines) {
    const name = /^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=/.exec(line)?.[1];
    if (name) {
      items.push({ name, comments, line });
      comments = [];
    } else if (line.startsWith('#')) {
      comments.push(line);
    } else {
      items.push(...comments.map((comment) => ({ comments: [], line: comment })), { comments: [], line });
      comments = [];
    }
  }
  items.push(...comments.map((comment) => ({ comments: [], line: comment })));
  return items;
}

const sameLines = (a: string[] | undefined, b: string[] | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A conflicting region of .env.example merged variable by variable: each variable's comment and
 * its line are the new render's unless the user changed them; a variable the new render adds is
 * added, one it drops goes unless the user changed it, and the user's own variables stay. Other
 * lines (blank, section headings) are the new render's, unless the user changed those too: then
 * the region stays a conflict.
 */
export function resolveEnvRegion(mine: string[], base: string[], theirs: string[]): string[] | undefined {
  const [mineItems, baseItems, theirItems] = [envItems(mine), envItems(base), envItems(theirs)];
  const others = (items: EnvItem[]) => items.filter((item) => !item.name).map((item) => item.line);
  if (!sameLines(others(mineItems), others(baseItems))) return undefined;
  const named = (items: EnvItem[]) => new Map(items.flatMap((item) => (item.name ? [[item.name, item] as const] : [])));
  const [mineByName, baseByName, theirByName] = [named(mineItems), named(baseItems), named(theirItems)];
  const out: string[] = [];
  for (const item of theirItems) {
    if (!item.name) {
      out.push(item.line);
      continue;
    }
    const [own, old] = [mineByName.get(item.name), baseByName.get(item.name)];
    if (!own) {
      if (!old) out.push(...item.comments, item.line); // new in this render; a variable the user deleted stays deleted
      continue;
    }
    out.push(...(sameLines(own.comments, old?.comments) ? item.comments : own.comments), own.line === old?.line ? item.line : own.line);
  }
  for (const item of mineItems) {
    if (!item.name || theirByName.has(item.name)) continue;
    const old = baseByName.get(item.name);
    if (!old || !sameLines([...old.comments, old.line], [...item.comments, item.line])) out.push(...item.comments, item.line);
  }
  return out;
}
