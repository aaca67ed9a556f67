import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

export const googleConfig = {
  ...clientSettings('GOOGLE'),
  GOOGLE_ISSUER: endpoint('https://accounts.google.com'),
};

/** Google: OpenID Connect with PKCE. Its tokens may name the issuer without the scheme ("accounts.google.com"). */
export const google = oidcProvider({
  id: 'google',
  name: 'Google',
  issuer: (config) => config.GOOGLE_ISSUER,
  credentials: (config) => clientCredentials(config.GOOGLE_CLIENT_ID, config.GOOGLE_CLIENT_SECRET),
  callbackUrl: (config) => config.GOOGLE_CALLBACK_URL,
  issuerAliases: (issuer) => [issuer.replace(/^https:\/\//, '')],
});
