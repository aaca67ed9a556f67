import { hkdfSync } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../../../config.js';

/** What a sign-in needs to remember between the start and the callback. */
export interface OAuthFlow {
  provider: string;
  state: string;
  nonce?: string;
  codeVerifier?: string;
  returnTo: string;
  /** Set when the flow links the provider to a signed-in user (POST /api/auth/{provider}/link). */
  linkUserId?: string;
}

const COOKIE = 'gatekit_oauth';
const PATH = '/api/auth';
const LIFETIME_SECONDS = 10 * 60;

function cookieKey(config: Config): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', config.JWT_SECRET, '', 'gatekit oauth flow cookie', 32));
}

function cookieOptions(config: Config) {
  return { path: PATH, httpOnly: true, secure: config.API_URL.startsWith('https:'), sameSite: 'lax' as const };
}

/**
 * One encrypted (A256GCM), httpOnly cookie scoped to /api/auth holds the flow for 10 minutes: the
 * browser carries it from the start to the callback, and nobody can read or change it.
 */
export async function setFlowCookie(res: Response, config: Config, flow: OAuthFlow): Promise<void> {
  // jose is loaded with the first sign-in through a provider, not at start: importing it costs tens of milliseconds.
  const { EncryptJWT } = await import('jose');
  const sealed = await new EncryptJWT({ ...flow })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SECONDS}s`)
    .encrypt(cookieKey(config));
  res.cookie(COOKIE, sealed, { ...cookieOptions(config), maxAge: LIFETIME_SECONDS * 1000 });
}

/** The cookie goes whatever happens at the callback: a flow is used once. */
export function clearFlowCookie(res: Response, config: Config): void {
  res.clearCookie(COOKIE, cookieOptions(config));
}

function cookieValue(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

/** The flow of this browser, or undefined when the cookie is missing, forged or expired. */
export async function readFlowCookie(req: Request, config: Config): Promise<OAuthFlow | undefined> {
  const sealed = cookieValue(req);
  if (!sealed) return undefined;
  try {
    const { jwtDecrypt } = await import('jose');
    const { payload } = await jwtDecrypt(sealed, cookieKey(config), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    if (typeof payload.provider !== 'string' || typeof payload.state !== 'string' || typeof payload.returnTo !== 'string') return undefined;
    return payload as unknown as OAuthFlow;
  } catch {
    return undefined;
  }
}
