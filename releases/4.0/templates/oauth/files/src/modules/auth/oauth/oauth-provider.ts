import type { Config } from '../../../config.js';
import type { ProviderProfile } from '../identities/provider-profile.js';

/** How the app authenticates to the provider's token endpoint. */
export type ClientAuth = 'client_secret_post' | 'client_secret_basic';

/** The client credentials, or undefined while the provider is not configured. */
export interface ClientCredentials {
  clientId: string;
  /** Absent for Apple, whose secret is a JWT the app signs itself. */
  clientSecret?: string;
}

/** Claims of a verified id_token merged with the userinfo answer. */
export type Claims = Record<string, unknown>;

/** Parameters the provider sent back to the callback (code, state, Apple's user…). */
export type CallbackParams = Record<string, string>;

interface ProviderBase {
  /** The module id; also the path segment: /api/auth/{id}. */
  id: string;
  name: string;
  /** The scopes to ask for (the generic OIDC provider reads them from its settings). */
  scopes: string[] | ((config: Config) => string[]);
  clientAuth: ClientAuth;
  credentials(config: Config): ClientCredentials | undefined;
  /** A client secret the app signs itself for each token request (Apple's ES256 JWT). */
  signedClientSecret?(config: Config, clientId: string): Promise<string>;
  callbackUrl(config: Config): string | undefined;
  /** Extra authorization request parameters (Twitch's claims, Apple's response_mode…). */
  authorizationParams?: Record<string, string>;
  /** The callback arrives as a cross-site POST (response_mode=form_post). */
  formPost?: boolean;
}

/** A provider that speaks OpenID Connect: discovery, a signed id_token, userinfo. */
export interface OidcProvider extends ProviderBase {
  protocol: 'oidc';
  /** The issuer identifier the discovery document must name (Microsoft's may hold {tenantid}). */
  issuer(config: Config): string;
  /** PKCE S256 always, never, or when the discovery document offers S256. */
  pkce: 'always' | 'never' | 'if-offered';
  /** Check the nonce always, or only when the id_token carries one (LinkedIn never echoes it). */
  nonce: 'required' | 'if-present';
  /** Other issuer values the provider's tokens use (Google's "accounts.google.com"). */
  issuerAliases?(issuer: string): string[];
  /** The provider's stable account id; default the `sub` claim. */
  accountId?(claims: Claims): string | undefined;
  /** Whether the email is verified; default `email_verified` (true or "true"). */
  emailVerified?(claims: Claims): boolean;
  /** Profile fields only the callback carries (Apple sends the name once, in the `user` field). */
  fromCallback?(params: CallbackParams): Partial<Pick<ProviderProfile, 'name'>>;
}

/** A plain OAuth 2.0 provider: its own endpoints, and its own API for the profile. */
export interface OAuth2Provider extends ProviderBase {
  protocol: 'oauth2';
  pkce: 'always' | 'never';
  endpoints(config: Config): { authorization: string; token: string };
  /** Fetches the profile with the access token, through `api` (a timeout, the token attached). */
  profile(api: ProviderApi, config: Config): Promise<Omit<ProviderProfile, 'provider' | 'type'>>;
}

export type OAuthProvider = OidcProvider | OAuth2Provider;

/** Calls the provider's API with the access token; rejects on a non-2xx answer or after 10 s. */
export interface ProviderApi {
  accessToken: string;
  getJson(url: string, headers?: Record<string, string>): Promise<unknown>;
}
