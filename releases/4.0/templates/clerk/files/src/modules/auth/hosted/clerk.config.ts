import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { optionalString } from '../../../config/base-config.js';

const PEM_HINT = 'must be the PEM public key from the Clerk dashboard (API keys → Show JWT public key → PEM Public Key)';

/**
 * @clerk/backend builds its key by cutting the fixed prefix of an RSA-2048 SPKI PEM (e = 65537)
 * off the text, and silently refuses every token with any other key. So the key is checked here,
 * at start-up; `\n` written in a one-line .env value counts as a newline.
 */
const jwtKey = optionalString.transform((value, ctx) => {
  if (!value) return undefined;
  const pem = value.replace(/\\n/g, '\n');
  try {
    const key = createPublicKey(pem);
    const details = key.asymmetricKeyDetails;
    if (pem.includes('-----BEGIN PUBLIC KEY-----') && key.asymmetricKeyType === 'rsa' && details?.modulusLength === 2048 && details.publicExponent === 65537n) {
      return pem;
    }
  } catch {
    // not a key at all: refused below
  }
  ctx.addIssue({ code: 'custom', message: PEM_HINT });
  return z.NEVER;
});

/** Clerk's variables; all optional, so the app starts without Clerk (the exchange answers 404 until they are set). */
export const clerkConfig = {
  CLERK_SECRET_KEY: optionalString,
  CLERK_PUBLISHABLE_KEY: optionalString,
  CLERK_JWT_KEY: jwtKey,
  CLERK_AUTHORIZED_PARTIES: optionalString,
  CLERK_ISSUER: optionalString.pipe(z.url().optional()),
  CLERK_API_URL: z.url().default('https://api.clerk.com'),
};
