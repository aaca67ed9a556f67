import { hkdfSync } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../../../config.js';
import { clearOAuthCookie, FLOW_COOKIE, readOAuthCookie, setOAuthCookie } from './oauth-cookies.js';

/** What a sign-in needs to remember between the start and the callback. */
export interface OAuthFlow {
  provider: string;
  state: string;
  nonce?: string;
  codeVerifier?: string;
  returnTo: string;
  /** The front end's S256 code challenge: the exchange code is bound to its verifier, not to a cookie. */
  codeChallenge?: string;
  /** Set when the flow links the provider to a signed-in user (POST /api/auth/{provider}/link). */
  linkUserId?: string;
  /** The link flow's one-time token: revoking the user's tokens voids it, and the link with it. */
  linkFlow?: string;
}

/** A 256-bit key of its own for each thing this module seals, derived from JWT_SECRET. */
function sealingKey(config: Config, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', config.JWT_SECRET, '', `gatekit oauth ${purpose}`, 32));
}

/** Encrypts (A256GCM) a payload that only this server can read or change, valid for `lifetimeSeconds`. */
export async function seal(config: Config, purpose: string, payload: Record<string, unknown>, lifetimeSeconds: number): Promise<string> {
  // jose is loaded with the first sign-in through a provider, not at start: importing it costs tens of milliseconds.
  const { EncryptJWT } = await import('jose');
  return new EncryptJWT(payload)
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setExpirationTime(`${lifetimeSeconds}s`)
    .encrypt(sealingKey(config, purpose));
}

/** The payload of a sealed value, or undefined when it is forged, expired or sealed for another purpose. */
export async function unseal(config: Config, purpose: string, sealed: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { jwtDecrypt } = await import('jose');
    const { payload } = await jwtDecrypt(sealed, sealingKey(config, purpose), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    return payload;
  } catch {
    return undefined;
  }
}

/**
 * One encrypted (A256GCM), httpOnly cookie holds the flow for 10 minutes: the browser carries it
 * from the start to the callback, and nobody can read or change it.
 */
export async function setFlowCookie(res: Response, config: Config, flow: OAuthFlow): Promise<void> {
  setOAuthCookie(res, config, FLOW_COOKIE, await seal(config, 'flow cookie', { ...flow }, FLOW_COOKIE.maxAgeSeconds));
}

/** The cookie goes whatever happens at the callback: a flow is used once. */
export function clearFlowCookie(res: Response, config: Config): void {
  clearOAuthCookie(res, config, FLOW_COOKIE);
}

/** The flow of this browser, or undefined when the cookie is missing, forged or expired. */
export async function readFlowCookie(req: Request, config: Config): Promise<OAuthFlow | undefined> {
  const sealed = readOAuthCookie(req, config, FLOW_COOKIE);
  const payload = sealed ? await unseal(config, 'flow cookie', sealed) : undefined;
  if (typeof payload?.provider !== 'string' || typeof payload.state !== 'string' || typeof payload.returnTo !== 'string') return undefined;
  return payload as unknown as OAuthFlow;
}
