import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from '../../../config/signing-config.js';

/**
 * Private signing keys at rest: AES-256-GCM under the first KEY_ENCRYPTION_KEYS entry, stored as
 * "<entry id>.<iv>.<ciphertext>.<tag>" (base64url). The key's kid is the additional authenticated
 * data, so a ciphertext copied onto another key's row does not decrypt.
 */
export function encryptPrivateKey(plaintext: string, kid: string, keys: KeyEncryptionKey[]): string {
  const [current] = keys;
  if (!current) throw new Error('KEY_ENCRYPTION_KEYS is empty');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [current.id, ...[iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url'))].join('.');
}

/** The id of the KEY_ENCRYPTION_KEYS entry a stored private key is encrypted under. */
export function encryptedUnder(stored: string): string {
  return stored.split('.', 1)[0]!;
}

/** Decrypts what encryptPrivateKey stored, with whichever listed entry encrypted it. */
export function decryptPrivateKey(stored: string, kid: string, keys: KeyEncryptionKey[]): string {
  const [id, iv, ciphertext, tag] = stored.split('.');
  const entry = keys.find((candidate) => candidate.id === id);
  if (!entry) {
    throw new Error(`signing key ${kid} is encrypted under the KEY_ENCRYPTION_KEYS entry "${id}", which is no longer listed; add it back (after the current one) and run keys:rotate`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv ?? '', 'base64url'));
    decipher.setAAD(Buffer.from(kid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext ?? '', 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`signing key ${kid} does not decrypt with the KEY_ENCRYPTION_KEYS entry "${id}": that entry's key was changed, or the stored key was altered`);
  }
}
