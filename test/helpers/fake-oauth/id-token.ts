/**
 * Mints the id_token of a redeemed code: RS256 with the provider's key and kid, the registered
 * claims (iss, sub, aud, exp, iat, nonce when sent and echoed, azp where the provider sets it),
 * the provider's own claims, and, when a test queued one, exactly one defect.
 */
import { randomBytes } from 'node:crypto';
import { base64url, SignJWT, type JWTPayload } from 'jose';
import { tenantOf } from './claims.js';
import { issuerOf } from './discovery.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';
import type { Authorization, Fault } from './types.js';

export const ID_TOKEN_FAULTS = [
  'id_token_bad_signature',
  'id_token_wrong_aud',
  'id_token_wrong_iss',
  'id_token_expired',
  'id_token_wrong_nonce',
  'id_token_no_nonce',
  'id_token_alg_none',
  'id_token_hs256_client_secret',
  'id_token_unknown_kid',
  'id_token_future_iat',
  'id_token_long_lifetime',
] as const satisfies readonly Fault[];

type IdTokenFault = (typeof ID_TOKEN_FAULTS)[number];

const ONE_HOUR = 3600;

export function idTokenIssuer(fake: FakeContext, spec: ProviderSpec, authorization: Authorization): string {
  return issuerOf(fake, spec, spec.id === 'microsoft' ? tenantOf(authorization) : undefined);
}

function payloadOf(fake: FakeContext, spec: ProviderSpec, authorization: Authorization): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  const { nonce, clientId, user } = authorization;
  return {
    iss: idTokenIssuer(fake, spec, authorization),
    sub: user.id,
    aud: clientId,
    iat: now,
    exp: now + ONE_HOUR,
    auth_time: now,
    ...(nonce && spec.echoesNonce ? { nonce } : {}),
    ...(spec.azp ? { azp: clientId } : {}),
    ...spec.claims?.({ fake, authorization, target: 'id_token' }),
  };
}

/** The claim defects; the signature defects are applied when signing. */
const CLAIM_DEFECTS: Partial<Record<IdTokenFault, (payload: JWTPayload) => JWTPayload>> = {
  id_token_wrong_aud: (payload) => ({ ...payload, aud: 'another-client-id' }),
  id_token_wrong_iss: (payload) => ({ ...payload, iss: 'https://issuer.invalid' }),
  id_token_expired: (payload) => ({ ...payload, iat: payload.iat! - 2 * ONE_HOUR, exp: payload.iat! - ONE_HOUR }),
  id_token_wrong_nonce: (payload) => ({ ...payload, nonce: randomBytes(16).toString('base64url') }),
  id_token_no_nonce: ({ nonce: _nonce, ...payload }) => payload,
  id_token_future_iat: (payload) => ({ ...payload, iat: payload.iat! + 600, exp: payload.iat! + 600 + ONE_HOUR }),
  id_token_long_lifetime: (payload) => ({ ...payload, exp: payload.iat! + 100 * 365 * 24 * ONE_HOUR }),
};

function unsigned(payload: JWTPayload): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
}

/** `clientSecret`: what the client authenticated with (apple: its JWT), the HS256 key of that fault. */
export async function mintIdToken(fake: FakeContext, spec: ProviderSpec, authorization: Authorization, clientSecret: string): Promise<string> {
  const fault = fake.state.takeFault(spec.id, ID_TOKEN_FAULTS);
  const defect = fault && CLAIM_DEFECTS[fault];
  const payload = defect ? defect(payloadOf(fake, spec, authorization)) : payloadOf(fake, spec, authorization);
  if (fault === 'id_token_alg_none') return unsigned(payload);
  const key = fake.keys[spec.id]!;
  const jwt = (alg: string, kid: string) => new SignJWT(payload).setProtectedHeader({ alg, kid, typ: 'JWT' });
  if (fault === 'id_token_hs256_client_secret') return jwt('HS256', key.kid).sign(new TextEncoder().encode(clientSecret));
  if (fault === 'id_token_bad_signature') return jwt('RS256', key.kid).sign(fake.rogueKey.privateKey);
  if (fault === 'id_token_unknown_kid') return jwt('RS256', fake.rogueKey.kid).sign(fake.rogueKey.privateKey);
  return jwt('RS256', key.kid).sign(key.privateKey);
}

/** The userinfo claims: sub plus the provider's own claims for userinfo. */
export function userinfoClaims(fake: FakeContext, spec: ProviderSpec, authorization: Authorization): Record<string, unknown> {
  return { sub: authorization.user.id, ...spec.claims?.({ fake, authorization, target: 'userinfo' }) };
}
