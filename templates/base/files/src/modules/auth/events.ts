import type { AppContext } from '../../context.js';
import { requestContext } from '../../http/request-context.js';
import type { AccountEvent, Db } from './account-events.js';
import { eventRecorders } from './account-hooks.js';

/** What a change says about itself; who did it and from where default to the current request's. */
export type NewEvent = Pick<AccountEvent, 'action'> & Partial<Omit<AccountEvent, 'action'>>;

const SYSTEM = { type: 'system', id: null } as const;

/**
 * Records an account event with the modules that keep them (the audit log), inside `db`: pass the
 * transaction of the change it describes, so both commit or neither does. An event that changes
 * nothing (a failed sign-in) is recorded with ctx.prisma before the answer goes out. Without such a
 * module, nothing happens.
 */
export async function recordEvent(ctx: Pick<AppContext, 'config'>, db: Db, event: NewEvent): Promise<void> {
  if (eventRecorders.length === 0) return;
  const request = requestContext();
  const complete: AccountEvent = {
    actor: request?.caller ?? SYSTEM,
    client: request?.client ?? null,
    target: null,
    organizationId: null,
    metadata: {},
    ...event,
  };
  for (const record of eventRecorders) await record(db, complete, ctx);
}

/** A user as an event's actor or target. */
export const userRef = (id: string) => ({ type: 'user', id }) as const;
