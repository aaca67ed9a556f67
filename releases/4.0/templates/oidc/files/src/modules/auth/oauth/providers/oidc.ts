import { z } from 'zod';
import { clientCredentials, clientSettings, optionalUrl } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

export const oidcConfig = {
  ...clientSettings('OIDC'),
  OIDC_ISSUER: optionalUrl,
  OIDC_NAME: z.string().trim().default('OpenID Connect'),
  OIDC_SCOPES: z.string().trim().default('openid email profile'),
};

/** Any OpenID Connect issuer (Keycloak, Okta, Zitadel, Authentik…): PKCE when its discovery document offers it. */
export const oidc = oidcProvider({
  id: 'oidc',
  name: 'OpenID Connect',
  issuer: (config) => config.OIDC_ISSUER ?? '',
  credentials: (config) => (config.OIDC_ISSUER ? clientCredentials(config.OIDC_CLIENT_ID, config.OIDC_CLIENT_SECRET) : undefined),
  callbackUrl: (config) => config.OIDC_CALLBACK_URL,
  pkce: 'if-offered',
  scopes: (config) => config.OIDC_SCOPES.split(/\s+/).filter(Boolean),
});
