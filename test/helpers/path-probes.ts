/**
 * Requests that put a NUL byte (%00) into each path parameter of every route the app documents,
 * for the tests that every database answers them with a 4xx in the error shape (CONTRACT B.11).
 */
import { expect } from 'vitest';
import { call } from './app-process.js';

export interface PathProbe {
  method: string;
  path: string;
}

/** What a NUL-carrying parameter looks like; a test checks the logs never show it. */
export const NUL_PROBE = 'nul-probe%00x';

/**
 * For every documented route with {params} and each of its parameters, one request with that
 * parameter set to NUL_PROBE and the others to a real value where one is known (`known`, by
 * parameter name), so a nested route reaches its own lookup.
 */
export async function nulPathProbes(url: string, known: Record<string, string>): Promise<PathProbe[]> {
  const document = (await call(url, '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const probes: PathProbe[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const method of Object.keys(operations).map((name) => name.toUpperCase())) {
      for (const target of params) {
        const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => (name === target ? NUL_PROBE : encodeURIComponent(known[name] ?? 'x')));
        probes.push({ method, path: filled });
      }
    }
  }
  return probes;
}

/** Every error answer is { error: { code, message, details? } } and nothing else. */
export function expectErrorShape(body: unknown, context: string): void {
  const { error, ...rest } = body as { error: { code: string; message: string; details?: unknown } };
  expect(rest, context).toEqual({});
  expect(error.code, context).toMatch(/^[A-Z][A-Z_]+$/);
  expect(typeof error.message, context).toBe('string');
  expect(Object.keys(error).every((key) => ['code', 'message', 'details'].includes(key)), context).toBe(true);
}
