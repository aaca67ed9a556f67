import { Router } from 'express';
import type { AppContext } from '../../../context.js';
import type { SigningKey } from '../../../generated/prisma/client.js';
import { currentSigningKey, JWKS_MAX_AGE_SECONDS, publishedSigningKeys } from './signing-key-store.js';

/** A stored key as a public JWK: the public parameters only, never a private one. */
function toPublicJwk(key: SigningKey) {
  const { kty, crv, x, y } = JSON.parse(key.publicKey) as Record<string, string | undefined>;
  return { kty, crv, x, ...(y === undefined ? {} : { y }), kid: key.id, alg: key.algorithm, use: 'sig' };
}

/**
 * GET /.well-known/jwks.json: the public keys that verify this app's access tokens (the current
 * one, the next one as soon as it exists, and retired ones until their last token expires), for
 * other services. With JWT_ALGORITHM=HS256 there are none and the route does not exist (404).
 */
export function createJwksRoutes(ctx: AppContext): Router {
  const router = Router();
  if (ctx.config.JWT_ALGORITHM === 'HS256') return router;

  router.get('/.well-known/jwks.json', async (_req, res) => {
    // The key that signs now is in the set from the start, also before the first sign-in.
    await currentSigningKey(ctx);
    const keys = await publishedSigningKeys(ctx);
    res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.json({ keys: keys.map(toPublicJwk) });
  });

  return router;
}
