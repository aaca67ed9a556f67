import { Router } from 'express';
import type { AppContext } from '../../context.js';
import openApiDocument from '../../openapi.json' with { type: 'json' };

/** The OpenAPI 3.1 description of exactly this app's routes. */
export function createOpenApiRoutes(_ctx: AppContext): Router {
  const router = Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  return router;
}
