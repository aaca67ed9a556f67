import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/app-error.js';

export function createHealthRoutes(ctx: AppContext): Router {
  const router = Router();

  /** The process is up. */
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  /**
   * The process can serve traffic: the database answers a read of an app table (SELECT 1 would
   * pass while the tables are locked).
   */
  router.get('/readyz', async (_req, res) => {
    try {
      await ctx.prisma.user.findFirst({ select: { id: true } });
    } catch (error) {
      ctx.logger.warn({ err: error }, 'readiness check failed');
      throw new AppError(503, 'SERVICE_UNAVAILABLE', 'The database is not reachable.');
    }
    res.json({ status: 'ok' });
  });

  return router;
}
