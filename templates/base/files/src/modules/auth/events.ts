import type { AppContext } from '../../context.js';
import { requestContext } from '../../http/request-context.js';
import type { AccountEvent, Db } from './account-events.js';
import { eventRecorders } from './account-hooks.js';

/** What a change says about itself; who did it and from where default to the current request's. */
export type NewEvent = Pick<AccountEvent, 'action'> & Partial<Omit<AccountEvent, 'action'>>;

const SYSTEM = { type: 'system', id: null } as const;

/**
 * Records an account event with the modules that keep them (the audit log), inside `db`, which
 * must be the transaction of the change it describes, so both commit or neither does (the audit
 * log's chain also needs the transaction to append atomically). An event that changes nothing
 * goes through recordEventAlone. Without such a module, nothing happens.
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

/**
 * Records an event that changes nothing else (a refused sign-in, an export) in a transaction of its
 * own, committed before the caller answers.
 */
export async function recordEventAlone(ctx: Pick<AppContext, 'config' | 'prisma'>, event: NewEvent): Promise<void> {
  if (eventRecorders.length === 0) return;
  await ctx.prisma.$transaction((tx) => recordEvent(ctx, tx, event));
}

/** A user as an event's actor or target. */
export const userRef = (id: string) => ({ type: 'user', id }) as const;
