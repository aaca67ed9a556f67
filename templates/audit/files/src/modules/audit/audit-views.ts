import type { AuditEvent } from '../../generated/prisma/client.js';

/** An event as the API, the export and the webhooks show it. */
export interface AuditEventView {
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string | null } | null;
  organizationId: string | null;
  ip: string | null;
  userAgent: string | null;
  metadata: Record<string, unknown>;
}

export function toAuditEventView(event: AuditEvent): AuditEventView {
  return {
    id: event.id,
    occurredAt: event.occurredAt.toISOString(),
    action: event.action,
    actor: { type: event.actorType, id: event.actorId },
    target: event.targetType ? { type: event.targetType, id: event.targetId } : null,
    organizationId: event.organizationId,
    ip: event.ip,
    userAgent: event.userAgent,
    metadata: JSON.parse(event.metadata) as Record<string, unknown>,
  };
}
