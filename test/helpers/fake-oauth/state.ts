/**
 * What the fake remembers between requests: queued users and faults, issued codes and access
 * tokens, and every request it received. Plus the context every handler gets.
 */
import type { ServerResponse } from 'node:http';
import type { AppleClientKey, SigningKey } from './keys.js';
import type { Authorization, Fault, FakeUser, ProviderId, RecordedRequest } from './types.js';

export interface Client {
  id: string;
  /** apple has none: its client secret is a JWT the app signs. */
  secret: string;
}

/** An access token the fake issued, and the authorization it came from. */
export interface Grant {
  accessToken: string;
  authorization: Authorization;
  /** ms since epoch; undefined when the token does not expire (github OAuth apps). */
  expiresAt?: number;
  revoked: boolean;
}

export class FakeState {
  readonly records: RecordedRequest[] = [];
  /** By authorization code. */
  readonly authorizations = new Map<string, Authorization>();
  /** By access token. */
  readonly grants = new Map<string, Grant>();
  private readonly users = new Map<ProviderId, FakeUser[]>();
  private readonly faults = new Map<ProviderId, Fault[]>();

  queueUser(provider: ProviderId, user: FakeUser): void {
    this.users.set(provider, [...(this.users.get(provider) ?? []), user]);
  }

  takeUser(provider: ProviderId): FakeUser | undefined {
    return this.users.get(provider)?.shift();
  }

  queueFault(provider: ProviderId, fault: Fault): void {
    this.faults.set(provider, [...(this.faults.get(provider) ?? []), fault]);
  }

  /** Removes and returns the first queued fault of the provider that is one of `among`. */
  takeFault<F extends Fault>(provider: ProviderId, among: readonly F[]): F | undefined {
    const queue = this.faults.get(provider) ?? [];
    const index = queue.findIndex((fault) => (among as readonly Fault[]).includes(fault));
    if (index < 0) return undefined;
    return queue.splice(index, 1)[0] as F;
  }

  /** The live grant of an access token, if it belongs to the provider. */
  grant(provider: ProviderId, accessToken: string | undefined): Grant | undefined {
    const grant = accessToken ? this.grants.get(accessToken) : undefined;
    if (!grant || grant.revoked || grant.authorization.provider !== provider) return undefined;
    if (grant.expiresAt !== undefined && grant.expiresAt <= Date.now()) return undefined;
    return grant;
  }

  /** RFC 6749 4.1.2: a code used twice revokes the tokens it gave. */
  revokeGrantsOf(authorization: Authorization): void {
    for (const grant of this.grants.values()) if (grant.authorization === authorization) grant.revoked = true;
  }

  reset(): void {
    this.records.length = 0;
    this.authorizations.clear();
    this.grants.clear();
    this.users.clear();
    this.faults.clear();
  }
}

/** Everything a handler needs besides the request. */
export interface FakeContext {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  state: FakeState;
  clients: Record<ProviderId, Client>;
  /** RS256 signing key per OIDC provider. */
  keys: Partial<Record<ProviderId, SigningKey>>;
  /** Not in any JWKS: signs forged id_tokens. */
  rogueKey: SigningKey;
  apple: AppleClientKey;
  /** Token answers held open by the token_hang fault, ended by close(). */
  hanging: Set<ServerResponse>;
}
