import type { Configuration, TokenEndpointResponse } from 'openid-client';
import type { Config } from '../../../config.js';
import type { OAuthFlow } from './flow-cookie.js';
import type { CallbackParams, OAuthProvider } from './oauth-provider.js';
import { providerErrorOf } from './provider-error.js';

/** Where the provider sends the browser back: always the configured URL, never one derived from the request. */
export function redirectUri(config: Config, provider: OAuthProvider): string {
  return provider.callbackUrl(config) ?? `${config.API_URL}/api/auth/${provider.id}/callback`;
}

/**
 * The authorization URL: response_type=code, client_id, redirect_uri, the provider's scopes, a
 * random state (256 bits), PKCE S256 when asked for, and the nonce of an OpenID Connect flow.
 */
export async function authorizationUrl(
  config: Config,
  configuration: Configuration,
  provider: OAuthProvider,
  flow: Omit<OAuthFlow, 'provider' | 'state' | 'codeVerifier'>,
  usePkce: boolean,
): Promise<{ url: URL; flow: OAuthFlow }> {
  // openid-client is loaded with the first sign-in through a provider, not at start: importing it costs tens of milliseconds.
  const client = await import('openid-client');
  const state = client.randomState();
  const codeVerifier = usePkce ? client.randomPKCECodeVerifier() : undefined;
  const params: Record<string, string> = {
    redirect_uri: redirectUri(config, provider),
    scope: (typeof provider.scopes === 'function' ? provider.scopes(config) : provider.scopes).join(' '),
    state,
    ...(flow.nonce ? { nonce: flow.nonce } : {}),
    ...provider.authorizationParams,
  };
  if (codeVerifier) {
    params.code_challenge = await client.calculatePKCECodeChallenge(codeVerifier);
    params.code_challenge_method = 'S256';
  }
  const url = client.buildAuthorizationUrl(configuration, params);
  return { url, flow: { ...flow, provider: provider.id, state, ...(codeVerifier ? { codeVerifier } : {}) } };
}

/** Redeems the code at the token endpoint with the redirect_uri and the PKCE verifier. */
export async function redeemCode(
  config: Config,
  configuration: Configuration,
  provider: OAuthProvider,
  flow: OAuthFlow,
  params: CallbackParams,
): Promise<TokenEndpointResponse> {
  const client = await import('openid-client');
  const callback = new URL(redirectUri(config, provider));
  for (const name of ['code', 'state', 'iss'] as const) {
    if (params[name] !== undefined) callback.searchParams.set(name, params[name]);
  }
  try {
    return await client.authorizationCodeGrant(configuration, callback, { pkceCodeVerifier: flow.codeVerifier, expectedState: flow.state });
  } catch (error) {
    throw providerErrorOf(error, `redeeming the code failed: ${(error as { error?: string }).error ?? (error as Error).message}`);
  }
}
