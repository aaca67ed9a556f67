import { clientCredentials } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

/** A Keycloak realm (KEYCLOAK_ISSUER): OpenID Connect with PKCE. */
export const keycloak = oidcProvider({
  id: 'keycloak',
  name: 'Keycloak',
  issuer: (config) => config.KEYCLOAK_ISSUER ?? '',
  credentials: (config) => (config.KEYCLOAK_ISSUER ? clientCredentials(config.KEYCLOAK_CLIENT_ID, config.KEYCLOAK_CLIENT_SECRET) : undefined),
  callbackUrl: (config) => config.KEYCLOAK_CALLBACK_URL,
});
