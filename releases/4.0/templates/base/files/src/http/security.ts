import cors from 'cors';
import type { Express } from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';

/**
 * Helmet's headers, no X-Powered-By, CORS only for the configured origins, proxy trust, and no
 * caching of API answers (they carry tokens, secrets and recovery codes).
 */
export function applySecurity(app: Express, config: Config): void {
  app.disable('x-powered-by');
  // Answers are not cached (no-store), so an ETag would be a hash of every body for nothing.
  app.disable('etag');
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(helmet());
  app.use('/api', (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  const allowed = new Set(config.CORS_ORIGINS);
  const answerCors = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
  });
  // Browsers send Origin with every cross-origin request; without one there is nothing to allow
  // and the CORS middleware would only add headers no client reads. Vary: Origin stays, so a cache
  // never hands this answer to a cross-origin request.
  app.use((req, res, next) => {
    if (req.headers.origin !== undefined) {
      answerCors(req, res, next);
      return;
    }
    res.setHeader('Vary', 'Origin');
    next();
  });
}
