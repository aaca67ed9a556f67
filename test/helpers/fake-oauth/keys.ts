/**
 * Keys the fake generates at start: one RS256 signing key per OIDC provider (published in its
 * JWKS), a rogue RS256 key for forged id_tokens, and the P-256 key an Apple developer would
 * download as a .p8 file (the app signs its client secret with it; the fake checks it).
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public JWK as the JWKS publishes it. */
  jwk: JWK;
}

export interface AppleClientKey {
  teamId: string;
  keyId: string;
  /** PKCS#8 PEM, what APPLE_PRIVATE_KEY holds. */
  privateKeyPem: string;
  publicKey: CryptoKey;
}

export async function createSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, jwk };
}

/** Apple ids are 10 upper-case letters and digits. */
function appleId(): string {
  return randomBytes(10)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '7')
    .toUpperCase()
    .slice(0, 10);
}

export async function createAppleClientKey(): Promise<AppleClientKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { teamId: appleId(), keyId: appleId(), privateKeyPem: await exportPKCS8(privateKey), publicKey };
}
