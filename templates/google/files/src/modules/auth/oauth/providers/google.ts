import { clientCredentials } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

/** Google: OpenID Connect with PKCE. Its tokens may name the issuer without the scheme ("accounts.google.com"). */
export const google = oidcProvider({
  id: 'google',
  name: 'Google',
  issuer: (config) => config.GOOGLE_ISSUER,
  credentials: (config) => clientCredentials(config.GOOGLE_CLIENT_ID, config.GOOGLE_CLIENT_SECRET),
  callbackUrl: (config) => config.GOOGLE_CALLBACK_URL,
  issuerAliases: (issuer) => [issuer.replace(/^https:\/\//, '')],
});
