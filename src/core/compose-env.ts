import { randomBytes } from 'node:crypto';
import type { Database, EnvVar, LoadedModule } from './manifest.js';

export const SECRET_MARKER = '<secret>';
/** A fresh KEY_ENCRYPTION_KEYS value: one entry, id `k1`, 256 random bits in base64. */
export const KEY_ENCRYPTION_KEY_MARKER = '<key-encryption-key>';

export interface ComposedEnv {
  example: string;
  dev: string;
  variables: { name: string; comment: string; example: string; module: string }[];
}

function exampleValue(variable: EnvVar, db: Database): string {
  return typeof variable.example === 'string' ? variable.example : (variable.example[db] ?? '');
}

/** Whether an app on `db` reads the variable. */
export function readOn(variable: EnvVar, db: Database): boolean {
  return variable.databases?.includes(db) ?? true;
}

function devValue(variable: EnvVar, db: Database, overrides: Record<string, string>): string {
  if (overrides[variable.name] !== undefined) return overrides[variable.name]!;
  if (variable.dev === SECRET_MARKER) return randomBytes(48).toString('base64url');
  if (variable.dev === KEY_ENCRYPTION_KEY_MARKER) return `k1:${randomBytes(32).toString('base64')}`;
  return variable.dev ?? exampleValue(variable, db);
}

/**
 * The URL the development server answers at, as the app's config derives it from the development
 * .env: API_URL, else http://localhost:$PORT. `overrides` are values set there already.
 */
export function developmentApiUrl(modules: LoadedModule[], db: Database, overrides: Record<string, string> = {}): string {
  const value = (name: string): string => {
    const variable = modules.flatMap((module) => module.manifest.env).find((candidate) => candidate.name === name);
    return variable ? devValue(variable, db, overrides) : (overrides[name] ?? '');
  };
  return value('API_URL') || `http://localhost:${value('PORT')}`;
}

function quote(value: string): string {
  return /^[\w./:@+-]*$/.test(value) ? value : JSON.stringify(value);
}

/**
 * Builds .env.example (every variable the app reads, each with a comment) and the development .env
 * (a fresh 384-bit JWT_SECRET and 256-bit KEY_ENCRYPTION_KEYS, the database URL, the rest as in
 * the example).
 */
export function composeEnv(modules: LoadedModule[], db: Database, overrides: Record<string, string> = {}): ComposedEnv {
  const example: string[] = [];
  const dev: string[] = ['# Development settings. Never commit this file; see .env.example for every variable.'];
  const variables: ComposedEnv['variables'] = [];
  for (const { manifest } of modules) {
    const read = manifest.env.filter((variable) => readOn(variable, db));
    if (read.length === 0) continue;
    example.push(`# --- ${manifest.name} ---`);
    dev.push('', `# --- ${manifest.name} ---`);
    for (const variable of read) {
      const value = exampleValue(variable, db);
      example.push(`# ${variable.comment}`, `${variable.name}=${quote(value)}`);
      dev.push(`${variable.name}=${quote(devValue(variable, db, overrides))}`);
      variables.push({ name: variable.name, comment: variable.comment, example: value, module: manifest.id });
    }
    example.push('');
  }
  return { example: `${example.join('\n').trimEnd()}\n`, dev: `${dev.join('\n')}\n`, variables };
}
