import { z } from 'zod';
import { clientSettings, optionalUrl } from '../oauth-settings.js';

export const oidcConfig = {
  ...clientSettings('OIDC'),
  OIDC_ISSUER: optionalUrl,
  OIDC_NAME: z.string().trim().default('OpenID Connect'),
  OIDC_SCOPES: z.string().trim().default('openid email profile'),
};
