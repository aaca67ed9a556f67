import { TokenRefused } from './service-errors.js';

/** How far a service's clock may run ahead of this server's. */
const MAX_CLOCK_AHEAD_SECONDS = 60;

/**
 * The time claims of a verified service token: one issued more than a minute in the future is
 * refused (a token minted ahead of time, or a clock far off), and so is one that lives longer than
 * `maxLifetimeSeconds` (exp - iat), for a service whose tokens are known to be short-lived. A
 * token with no `iat` is refused only when the service sets a lifetime.
 */
export function checkTokenTimes(service: string, claims: { iat?: unknown; exp?: unknown }, maxLifetimeSeconds?: number): void {
  const { iat, exp } = claims;
  if (iat === undefined && maxLifetimeSeconds === undefined) return;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new TokenRefused(`${service} iat is missing or not a number`);
  if (iat > Date.now() / 1000 + MAX_CLOCK_AHEAD_SECONDS) throw new TokenRefused(`${service} iat is in the future`);
  if (maxLifetimeSeconds === undefined) return;
  if (typeof exp !== 'number' || exp - iat > maxLifetimeSeconds) throw new TokenRefused(`${service} token lives longer than ${maxLifetimeSeconds} seconds`);
}
