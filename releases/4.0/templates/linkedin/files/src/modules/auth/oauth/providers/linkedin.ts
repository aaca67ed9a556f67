import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

export const linkedinConfig = {
  ...clientSettings('LINKEDIN'),
  LINKEDIN_ISSUER: endpoint('https://www.linkedin.com/oauth'),
};

/**
 * LinkedIn (Sign In with LinkedIn using OpenID Connect): no PKCE (apps not enabled for it get
 * invalid_client when a verifier is sent), and the nonce is sent but never echoed in the id_token.
 */
export const linkedin = oidcProvider({
  id: 'linkedin',
  name: 'LinkedIn',
  issuer: (config) => config.LINKEDIN_ISSUER,
  credentials: (config) => clientCredentials(config.LINKEDIN_CLIENT_ID, config.LINKEDIN_CLIENT_SECRET),
  callbackUrl: (config) => config.LINKEDIN_CALLBACK_URL,
  pkce: 'never',
  nonce: 'if-present',
});
