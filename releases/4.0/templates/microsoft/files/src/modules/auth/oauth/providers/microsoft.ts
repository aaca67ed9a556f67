import { z } from 'zod';
import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';
import { isTrue, text } from '../profile-fields.js';

export const microsoftConfig = {
  ...clientSettings('MICROSOFT'),
  MICROSOFT_TENANT_ID: z.string().trim().min(1).default('common'),
  MICROSOFT_ISSUER: endpoint('https://login.microsoftonline.com/{tenant}/v2.0'),
};

/**
 * Microsoft Entra ID and personal accounts. The account is the tenant id plus the object id
 * (`tid` + `oid`: `sub` differs per app, `email` is mutable). The `email` claim alone proves
 * nothing (the "nOAuth" takeover): it counts as verified only with `xms_edov: true`.
 */
export const microsoft = oidcProvider({
  id: 'microsoft',
  name: 'Microsoft',
  issuer: (config) => config.MICROSOFT_ISSUER.replace('{tenant}', config.MICROSOFT_TENANT_ID),
  credentials: (config) => clientCredentials(config.MICROSOFT_CLIENT_ID, config.MICROSOFT_CLIENT_SECRET),
  callbackUrl: (config) => config.MICROSOFT_CALLBACK_URL,
  accountId: (claims) => {
    const tenant = text(claims.tid);
    const object = text(claims.oid);
    return tenant && object ? `${tenant}.${object}` : undefined;
  },
  emailVerified: (claims) => isTrue(claims.xms_edov),
});
