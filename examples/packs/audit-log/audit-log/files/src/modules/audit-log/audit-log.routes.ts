import { Router } from 'express';
import type { AppContext } from '../../context.js';
import { currentAuth, requireAuth } from '../auth/guard.js';

/** GET /api/audit-log: the signed-in user's own events, newest first. */
export function createAuditLogRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/api/audit-log', requireAuth(ctx), async (_req, res) => {
    const events = await ctx.prisma.auditEvent.findMany({
      where: { userId: currentAuth(res).user.id },
      orderBy: { createdAt: 'desc' },
      take: ctx.config.AUDIT_LOG_PAGE_SIZE,
      select: { id: true, action: true, createdAt: true },
    });
    res.json({ events });
  });

  return router;
}
