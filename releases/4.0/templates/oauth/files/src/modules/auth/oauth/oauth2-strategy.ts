import type * as client from 'openid-client';
import type { Config } from '../../../config.js';
import type { ProviderProfile } from '../identities/provider-profile.js';
import { authorizationUrl, redeemCode } from './authorization-request.js';
import { clientConfiguration } from './client-configuration.js';
import { usableEndpoint } from './discovery.js';
import type { OAuthFlow } from './flow-cookie.js';
import type { ClientCredentials, OAuth2Provider } from './oauth-provider.js';
import { ProviderError } from './provider-error.js';
import { getJson } from './provider-http.js';

/** The configured endpoints; plain http ones are refused in production. */
function metadataOf(config: Config, provider: OAuth2Provider): client.ServerMetadata {
  const { authorization, token } = provider.endpoints(config);
  if (!usableEndpoint(config, authorization) || !usableEndpoint(config, token)) {
    throw new ProviderError(`${provider.name}'s authorization and token endpoints must be https in production`);
  }
  return { issuer: new URL(token).origin, authorization_endpoint: authorization, token_endpoint: token };
}

/**
 * The one strategy for plain OAuth 2.0 providers: their configured endpoints, the code flow with
 * state and PKCE as the provider allows, and the profile from the provider's own API.
 */
export const oauth2Strategy = {
  async start(config: Config, provider: OAuth2Provider, credentials: ClientCredentials, flow: Pick<OAuthFlow, 'returnTo' | 'linkUserId'>) {
    const configuration = await clientConfiguration(config, provider, credentials, metadataOf(config, provider));
    return authorizationUrl(config, configuration, provider, flow, provider.pkce === 'always');
  },

  async finish(config: Config, provider: OAuth2Provider, credentials: ClientCredentials, flow: OAuthFlow, params: Record<string, string>): Promise<ProviderProfile> {
    const configuration = await clientConfiguration(config, provider, credentials, metadataOf(config, provider));
    const { access_token: accessToken } = await redeemCode(config, configuration, provider, flow, params);
    const api = async (url: string, headers?: Record<string, string>) => {
      if (!usableEndpoint(config, url)) throw new ProviderError(`${provider.name}'s profile endpoints must be https in production`);
      return getJson(url, accessToken, headers);
    };
    const profile = await provider.profile({ accessToken, getJson: api }, config);
    if (!profile.providerAccountId) throw new ProviderError('the profile has no account id');
    return { ...profile, provider: provider.id, type: 'oauth' };
  },
};
