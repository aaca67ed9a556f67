import type { AppContext } from '../../context.js';
import type { Prisma, User } from '../../generated/prisma/client.js';
import type { Actor, Client } from '../../http/request-context.js';

// What a module's hooks receive and return (listed in account-hooks.ts). This file imports no
// module, so every module can import it without importing the lists of hooks back.

/** The database, or a transaction of it. */
export type Db = Prisma.TransactionClient;

export type { Actor, Client } from '../../http/request-context.js';

/** How a sign-in happened and from where. */
export interface SignIn extends Client {
  /** password, magic_link, passkey, or the provider or service id. */
  method: string;
  /** The second factor that completed the sign-in (totp, recovery_code, passkey), when one did. */
  secondFactor?: string;
}

/** A further step a user must pass before a token is issued (for example a second factor). */
export interface LoginChallenge {
  mfaRequired: true;
  mfaToken: string;
  methods: string[];
}

/** Work that waits until every challenge is passed; `kind` names one of the deferred steps. */
export interface PendingStep {
  kind: string;
  data: string;
}

/** A check every sign-in passes before a token is issued; it may answer with a challenge (two-factor). */
export type LoginCheck = (ctx: AppContext, user: User, signIn: SignIn, pending?: PendingStep) => Promise<LoginChallenge | undefined>;

/** Work on one user's rows, inside the transaction of an account event. */
export type AccountStep = (db: Db, userId: string) => Promise<unknown>;

/** Work of a take-over, inside its transaction; `ctx` for what a step needs of the app (such as a lock). */
export type TakeOverStep = (db: Db, userId: string, ctx: AppContext) => Promise<unknown>;

/** Work a first factor defers until every challenge is passed, such as the new password of a reset. */
export interface DeferredStep {
  kind: string;
  /** Does the work and returns the user as it left it. */
  run(ctx: AppContext, user: User, data: string): Promise<User>;
}

/** An API key as the guard hands it to a route: who it acts for and what it may do. */
export interface KeyCaller {
  key: { id: string; name: string; scopes: string[] };
  /** The user a user key acts as; null for an organization key, which has no user. */
  user: User | null;
  /** The organization an organization key acts in, with its role there; null for a user key. */
  organization: { id: string; role: string } | null;
}

/**
 * Recognises the API keys of one module by their prefix: the caller a key acts as; null for one of
 * its keys that is malformed, unknown, deleted or expired; undefined for a key it did not issue.
 */
export type BearerKeyCheck = (ctx: AppContext, key: string) => Promise<KeyCaller | null | undefined>;

/**
 * Something that happened to an account, an organization or a key, as an audit log records it.
 * `action` is one of the names the modules' manifests declare (`events`); `metadata` names
 * things (a method, a reason, a role), never a password, token, code or secret. The actor and
 * client default to the current request's (request-context.ts).
 */
export interface AccountEvent {
  action: string;
  actor: Actor;
  target: { type: string; id: string } | null;
  organizationId: string | null;
  client: Client | null;
  metadata: Record<string, string | number | boolean | null>;
}

/** Records an event inside the transaction of the change it describes (the audit module's hook). */
export type EventRecorder = (db: Db, event: AccountEvent, ctx: Pick<AppContext, 'config'>) => Promise<void>;
/** Refuses the user a session by throwing (a ban); run by every sign-in and every refresh. */
export type SessionCheck = (db: Db, userId: string) => Promise<void>;

/** The admin behind an impersonation session, as `GET /api/auth/me` shows them. */
export interface Impersonator {
  id: string;
  email: string;
}

/** The admin behind the impersonation session `sessionId`, while it may still act; null once it may not. */
export type ImpersonatorLookup = (db: Db, sessionId: string) => Promise<Impersonator | null>;

/** What the deletion of an account may take with it. */
export interface DeletionOptions {
  /** Delete the organizations the user alone owns that have other members, instead of refusing (409 SOLE_OWNER). */
  deleteSoleOwnedOrganizations: boolean;
}

/** Work before a user is deleted, inside its transaction: remove what the module holds, or refuse by throwing. */
export type AccountDeletionStep = (db: Db, userId: string, ctx: AppContext, options: DeletionOptions) => Promise<unknown>;

/**
 * A module's part of the account export: top-level keys of the export (`organizations`), or
 * `signInMethods` entries, which are merged with the other modules' ones. Never a hash, secret or token.
 */
export type ExportSection = (db: Db, userId: string) => Promise<Record<string, unknown>>;
