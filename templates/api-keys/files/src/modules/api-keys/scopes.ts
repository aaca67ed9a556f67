import { z } from 'zod';
import type { Config } from '../../config.js';

/**
 * Scopes every app with API keys knows: reading the key's user (GET /api/auth/me), and reading or
 * changing organizations. API_KEY_SCOPES adds the app's own, for its own routes.
 */
export const BUILT_IN_SCOPES = ['profile:read', 'orgs:read', 'orgs:write'];

export const knownScopes = (config: Config) => [...new Set([...BUILT_IN_SCOPES, ...config.API_KEY_SCOPES])];

/** A key made without scopes gets every scope that only reads. */
export const defaultScopes = (config: Config) => knownScopes(config).filter((scope) => scope.endsWith(':read'));

/** The `scopes` of a new key: known ones only, each once. */
export function scopesField(config: Config) {
  const known = knownScopes(config);
  return z
    .array(z.string({ error: 'each scope must be a string' }), { error: 'scopes must be a list of scopes' })
    .min(1, 'scopes lists no scope: omit it for the read scopes')
    .max(100, 'scopes lists too many scopes')
    .refine((scopes) => scopes.every((scope) => known.includes(scope)), `scopes must be among: ${known.join(', ')}`)
    .transform((scopes) => [...new Set(scopes)]);
}
