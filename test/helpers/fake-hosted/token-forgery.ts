/**
 * Mints the services' JWTs, good ones and attack variants. Every token is assembled by hand
 * (base64url header and payload, then the signature) so headers and claims can say anything.
 */
import { bareJwk, generateSecretKey, generateSigningKey, hmacSha256, signBytes, type AsymmetricKey, type SecretKey, type SigningKey } from './keys.js';
import { base64url } from './ids.js';

/**
 * - `normal`: signed by the service's key.
 * - `none`: header `alg: "none"` and an empty signature part (`header.payload.`).
 * - `hs256-with-public-key`: header `alg: "HS256"`, HMAC-SHA256 keyed with the service's public key
 *   as SPKI PEM text (the key-confusion attack on verifiers that let the token pick the algorithm).
 * - `other-key`: a valid signature by an attacker key of the same type, under the service's kid.
 * - `embedded-jwk`: signed by an attacker key whose public JWK is in the header (`jwk`), with `jku`
 *   pointing at the attacker JWKS the fake serves at `/attacker/jwks.json` and the attacker's kid.
 */
export type SignMode = 'normal' | 'none' | 'hs256-with-public-key' | 'other-key' | 'embedded-jwk';

export interface TokenOverrides {
  /** Merged over the default claims; a key set to `undefined` removes that claim. */
  claims?: Record<string, unknown>;
  /**
   * Merged over the protected header after the sign mode set it up; `undefined` removes a member.
   * Changing `alg` changes only what the header claims, not how the token is signed.
   */
  header?: Record<string, unknown>;
  /** Default `normal`. */
  sign?: SignMode;
}

/** The attacker's keys: one per algorithm, and the JWKS URL the fake serves them at. */
export interface AttackerKeys {
  rs256: AsymmetricKey;
  es256: AsymmetricKey;
  hs256: SecretKey;
  jwksUrl: string;
}

export async function generateAttackerKeys(jwksUrl: string): Promise<AttackerKeys> {
  const [rs256, es256] = await Promise.all([
    generateSigningKey('RS256', 'attacker-rs256'),
    generateSigningKey('ES256', 'attacker-es256'),
  ]);
  return { rs256, es256, hs256: generateSecretKey(), jwksUrl };
}

export interface MintRequest {
  /** The key a real token of this kind is signed with. */
  key: SigningKey;
  /** The public key whose PEM text keys the `hs256-with-public-key` forgery; default `key` itself. */
  publicKey?: AsymmetricKey;
  attacker: AttackerKeys;
  /** Header members after `alg`, `kid` and `typ: 'JWT'`. */
  header?: Record<string, unknown>;
  claims: Record<string, unknown>;
  overrides?: TokenOverrides;
}

function attackerKeyFor(attacker: AttackerKeys, key: SigningKey): SigningKey {
  return key.alg === 'RS256' ? attacker.rs256 : key.alg === 'ES256' ? attacker.es256 : attacker.hs256;
}

/** The header and signer for a sign mode, before the caller's header overrides. */
function plan(request: MintRequest): { header: Record<string, unknown>; sign: ((input: string) => Buffer) | null } {
  const { key, attacker } = request;
  const header = { alg: key.alg, ...(key.kid ? { kid: key.kid } : {}), typ: 'JWT', ...request.header };
  const publicKey = request.publicKey ?? (key.alg === 'HS256' ? undefined : key);
  switch (request.overrides?.sign ?? 'normal') {
    case 'normal':
      return { header, sign: (input) => signBytes(key, input) };
    case 'none':
      return { header: { ...header, alg: 'none' }, sign: null };
    case 'hs256-with-public-key':
      if (!publicKey) throw new Error('hs256-with-public-key needs the public key of an asymmetric key.');
      return { header: { ...header, alg: 'HS256' }, sign: (input) => hmacSha256(publicKey.spkiPem, input) };
    case 'other-key': {
      const forged = attackerKeyFor(attacker, key);
      return { header, sign: (input) => signBytes(forged, input) };
    }
    case 'embedded-jwk': {
      const forged = key.alg === 'ES256' ? attacker.es256 : attacker.rs256;
      return {
        header: { ...header, alg: forged.alg, kid: forged.kid, jwk: bareJwk(forged), jku: attacker.jwksUrl },
        sign: (input) => signBytes(forged, input),
      };
    }
  }
}

/** A compact JWS: `base64url(header).base64url(claims).base64url(signature)` (empty signature for `none`). */
export function mintToken(request: MintRequest): string {
  const planned = plan(request);
  // JSON.stringify leaves out members set to undefined, which is how an override removes one.
  const header = { ...planned.header, ...request.overrides?.header };
  const claims = { ...request.claims, ...request.overrides?.claims };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${planned.sign ? base64url(planned.sign(input)) : ''}`;
}
