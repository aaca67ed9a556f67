/**
 * The shape of one provider's description. Providers differ mostly in data (paths, client
 * authentication, PKCE, lifetimes); code only where their formats really differ: the token
 * dialect, the OIDC claims, and the profile API of the plain OAuth providers.
 */
import type { TokenDialect } from './dialects.js';
import type { Exchange } from './http.js';
import type { FakeContext, Grant } from './state.js';
import type { Authorization, Endpoint, ProviderId } from './types.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'apple_client_secret_jwt';
export type PkceMethod = 'S256' | 'plain';

export interface ClaimsContext {
  fake: FakeContext;
  authorization: Authorization;
  /** Claims differ between the id_token and userinfo for twitch (its `claims` parameter). */
  target: 'id_token' | 'userinfo';
}

/** A profile endpoint (`userinfo` or github's `emails`) that reads the grant of the access token. */
export interface ResourceContext {
  fake: FakeContext;
  spec: ProviderSpec;
  ex: Exchange;
  endpoint: 'userinfo' | 'emails';
  /** The live grant of an access token of this provider, else undefined. */
  grant(accessToken: string | undefined): Grant | undefined;
}

export interface ProviderSpec {
  id: ProviderId;
  displayName: string;
  /** oidc: discovery, JWKS, id_token; oauth2: a profile API only. */
  protocol: 'oauth2' | 'oidc';
  /** Path patterns under `/{id}`; `{tenant}` matches one segment (microsoft). Discovery is added for oidc. */
  routes: Partial<Record<Endpoint, string>>;
  scopes: string[];
  clientAuth: readonly ClientAuthMethod[];
  /** Token request bodies accepted besides application/x-www-form-urlencoded. */
  acceptsJsonTokenBody?: boolean;
  /** github, facebook: their token endpoints do not need grant_type (when sent it must be authorization_code). */
  grantTypeOptional?: boolean;
  /** facebook: the token endpoint also answers GET with the parameters in the query. */
  tokenViaGet?: boolean;
  dialect: TokenDialect;
  /** methods [] = the provider ignores PKCE parameters. */
  pkce: { methods: readonly PkceMethod[]; required?: boolean; advertised?: boolean };
  /** linkedin: apps not enabled for PKCE get invalid_client when a code_verifier is sent. */
  rejectsCodeVerifier?: boolean;
  requiresState?: boolean;
  codeLifetimeSeconds: number;
  /** Access token lifetime; undefined: never expires, no expires_in. */
  accessTokenSeconds?: number;
  /** true: always a refresh token; a scope: only when it was granted. */
  refreshToken?: true | string;
  tokenPrefix: string;
  /** oidc: the nonce from authorize comes back in the id_token. */
  echoesNonce?: boolean;
  /** apple: id_token even without `openid` in the scope. */
  idTokenWithoutOpenid?: boolean;
  /** id_token carries azp = client id. */
  azp?: boolean;
  /** apple: response_mode=form_post answers with an auto-submitting form POST (required for name/email). */
  formPost?: boolean;
  /** twitch: the `claims` request parameter decides the optional claims. */
  claimsParameter?: boolean;
  /** slack: userinfo wraps its claims in `{ ok: true }` and errors as `{ ok: false }`. */
  okEnvelope?: boolean;
  /** oidc: the provider's own claims (beyond iss, sub, aud, exp, iat, nonce, azp). */
  claims?: (context: ClaimsContext) => Record<string, unknown>;
  /** oauth2: answers its profile (and emails) endpoints. */
  profile?: (context: ResourceContext) => void;
}
