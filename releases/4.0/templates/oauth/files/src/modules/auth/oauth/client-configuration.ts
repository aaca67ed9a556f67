import type { Configuration, ServerMetadata } from 'openid-client';
import type { Config } from '../../../config.js';
import { insecureAllowed } from './discovery.js';
import type { ClientCredentials, OAuthProvider } from './oauth-provider.js';
import { providerFetch, PROVIDER_TIMEOUT_SECONDS, type IdTokenSink } from './provider-http.js';

/**
 * An openid-client configuration for one flow of one provider: its client authentication, the
 * 10-second timeout, and a fetch that normalizes token answers into the sink (provider-http.ts).
 */
export async function clientConfiguration(
  config: Config,
  provider: OAuthProvider,
  credentials: ClientCredentials,
  metadata: ServerMetadata,
  sink: IdTokenSink = {},
): Promise<Configuration> {
  const client = await import('openid-client');
  const secret = provider.signedClientSecret ? await provider.signedClientSecret(config, credentials.clientId) : (credentials.clientSecret ?? '');
  const authentication = provider.clientAuth === 'client_secret_basic' ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret);
  const configuration = new client.Configuration(metadata, credentials.clientId, {}, authentication);
  configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
  configuration[client.customFetch] = providerFetch(metadata.token_endpoint, sink);
  if (insecureAllowed(config, metadata.token_endpoint ?? '') || insecureAllowed(config, metadata.authorization_endpoint ?? '')) {
    client.allowInsecureRequests(configuration);
  }
  return configuration;
}
