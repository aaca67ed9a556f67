import { composeEnv } from './compose-env.js';
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
    const missing = module.manifest.env.filter((variable) => !present.has(variable.name));
    if (missing.length === 0) continue;
    const dev = composeEnv([{ ...module, manifest: { ...module.manifest, env: missing } }], db).dev;
    blocks.push(dev.split('\n').slice(2).join('\n').trimEnd());
    names.push(...missing.map((variable) => variable.name));
  }
  if (names.length === 0) return undefined;
  const content = `${current.trimEnd()}\n\n${blocks.join('\n\n')}\n`;
  return { kind: 'merged' as const, content, names };
}
