/**
 * The types every part of the fake OAuth/OIDC provider server shares: who logs in, what can go
 * wrong on purpose, and what the fake records.
 */
import type { IncomingHttpHeaders } from 'node:http';

export type ProviderId =
  | 'google'
  | 'github'
  | 'facebook'
  | 'twitter'
  | 'discord'
  | 'microsoft'
  | 'apple'
  | 'linkedin'
  | 'gitlab'
  | 'slack'
  | 'twitch'
  | 'oidc';

export const PROVIDER_IDS: ProviderId[] = [
  'google',
  'github',
  'facebook',
  'twitter',
  'discord',
  'microsoft',
  'apple',
  'linkedin',
  'gitlab',
  'slack',
  'twitch',
  'oidc',
];

/** A provider-neutral description of who logs in next; each provider words it in its own format. */
export interface FakeUser {
  /** Provider account id. github: numeric string, sent as a number; microsoft: the `oid`; slack: the user id. */
  id: string;
  /** null or absent: the provider returns no email. */
  email?: string | null;
  /**
   * Default true. Said the provider's way: github `/user/emails` verified flag of the primary;
   * discord `verified`; twitter `confirmed_email` present or not; microsoft `xms_edov`; facebook
   * never; apple `email_verified` as the string "true"/"false" (see `appleStringBooleans`); the
   * other OIDC providers `email_verified` boolean.
   */
  emailVerified?: boolean;
  name?: string;
  picture?: string;
  /** github login, twitter username, discord username, gitlab nickname, twitch preferred_username. */
  username?: string;
  /** microsoft `tid` (default: the authorize URL's tenant GUID, else a fixed GUID; MSA tenant for `consumers`). */
  tenantId?: string;
  /** slack team id (default T0FAKETEAM). */
  teamId?: string;
  /** github only: extra `/user/emails` entries, e.g. a verified non-primary address. */
  extraEmails?: { email: string; primary: boolean; verified: boolean }[];
  /** github only: `/user.email` shows the primary address (public email); default false (null). */
  emailPublic?: boolean;
  /** apple only: the form post carries the `user` field (name, email); default true. */
  firstLogin?: boolean;
  /** apple only: `email_verified` / `is_private_email` as strings "true"/"false"; default true, else booleans. */
  appleStringBooleans?: boolean;
  /**
   * google, linkedin, gitlab, slack, oidc: the id_token says `email_verified: true` but carries no
   * `email`; userinfo gives the address with `email_verified` as `emailVerified` says. A client
   * that pairs one source's address with the other's flag takes an unverified address as verified.
   */
  emailClaimsSplit?: boolean;
}

export type Fault =
  /** authorize redirects back with error=access_denied&state=… (apple: form post with error). */
  | 'access_denied'
  /** token endpoint answers HTTP 500. */
  | 'token_500'
  /** token endpoint never answers (the socket stays open until close()). */
  | 'token_hang'
  /** github/slack: their HTTP 200 error; the others: their normal invalid-code error. */
  | 'token_error_200'
  /** profile, userinfo or emails endpoint answers 500. */
  | 'userinfo_500'
  | 'id_token_bad_signature'
  | 'id_token_wrong_aud'
  | 'id_token_wrong_iss'
  | 'id_token_expired'
  | 'id_token_wrong_nonce'
  | 'id_token_no_nonce'
  | 'id_token_alg_none'
  | 'id_token_hs256_client_secret'
  | 'id_token_unknown_kid'
  /** iat 10 minutes ahead of the clock (exp an hour after it). */
  | 'id_token_future_iat'
  /** exp 100 years after iat. */
  | 'id_token_long_lifetime'
  /** the discovery document's issuer has a trailing slash the configured issuer lacks. */
  | 'discovery_issuer_mismatch'
  | 'discovery_500'
  /** the discovery document has no authorization_endpoint. */
  | 'discovery_no_authorization_endpoint'
  /** the discovery document's authorization_endpoint is "not a url". */
  | 'discovery_authorization_endpoint_not_url'
  /** the discovery document's authorization_endpoint is a javascript: URL. */
  | 'discovery_javascript_authorization_endpoint'
  /**
   * The answer is the normal one plus a 50 MB padding member, streamed without Content-Length
   * (recorded: bytesSent, complete, abandoned). discovery, JWKS, token, userinfo / profile API / emails.
   */
  | 'discovery_huge'
  | 'jwks_huge'
  | 'token_huge'
  | 'userinfo_huge';

/** What a route of the fake does. */
export type Endpoint = 'authorize' | 'token' | 'userinfo' | 'emails' | 'jwks' | 'discovery';

/** One request the fake received, and how it answered. */
export interface RecordedRequest {
  provider: ProviderId;
  endpoint: Endpoint;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names, as Node gives them (authorization included). */
  headers: IncomingHttpHeaders;
  /** Form fields or parsed JSON; the raw text for other bodies; undefined when empty. */
  body: unknown;
  /** Undefined while the answer is pending (token_hang). */
  status?: number;
  /** 'ok', the error code the fake answered with (e.g. 'invalid_grant'), or the fault it played. */
  outcome?: string;
  /**
   * *_huge faults: the padding bytes written so far, whether the whole answer went out, and
   * whether the client closed the connection before that.
   */
  bytesSent?: number;
  complete?: boolean;
  abandoned?: boolean;
}

/** An authorize request the fake consented to, and the code it issued. */
export interface Authorization {
  provider: ProviderId;
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** twitch: the parsed `claims` parameter. */
  claims?: RequestedClaims;
  /** microsoft: the tenant segment of the authorize URL. */
  tenant?: string;
  user: FakeUser;
  issuedAt: number;
  redeemed: boolean;
}

/** The OIDC `claims` request parameter (twitch). */
export interface RequestedClaims {
  id_token?: Record<string, unknown>;
  userinfo?: Record<string, unknown>;
}
