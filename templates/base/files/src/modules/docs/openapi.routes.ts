import { Router } from 'express';
import type { AppContext } from '../../context.js';
import openApiDocument from '../../openapi.json' with { type: 'json' };

/** Served only with a key pair (JWT_ALGORITHM EdDSA or ES256): see signing-keys/jwks.routes.ts. */
const JWKS_PATH = '/.well-known/jwks.json';

/** The OpenAPI 3.1 description of exactly this app's routes. */
export function createOpenApiRoutes(ctx: AppContext): Router {
  const router = Router();
  const paths = Object.entries(openApiDocument.paths).filter(([path]) => path !== JWKS_PATH || ctx.config.JWT_ALGORITHM !== 'HS256');
  const document = { ...openApiDocument, paths: Object.fromEntries(paths) };
  router.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}
