import { createHmac } from 'node:crypto';
import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import type { OAuth2Provider } from '../oauth-provider.js';
import { accountIdOf, displayNameOf, imageOf, plainEmail } from '../profile-fields.js';

export const facebookConfig = {
  ...clientSettings('FACEBOOK'),
  FACEBOOK_AUTHORIZATION_URL: endpoint('https://www.facebook.com/v26.0/dialog/oauth'),
  FACEBOOK_TOKEN_URL: endpoint('https://graph.facebook.com/v26.0/oauth/access_token'),
  FACEBOOK_USERINFO_URL: endpoint('https://graph.facebook.com/v26.0/me'),
};

/**
 * Facebook (Graph API v26.0): plain OAuth 2.0 without PKCE. Every Graph call carries
 * appsecret_proof. Facebook says nothing about whether an address is verified, so its email never
 * counts as verified: it never links to an existing account by itself.
 */
export const facebook: OAuth2Provider = {
  id: 'facebook',
  name: 'Facebook',
  protocol: 'oauth2',
  pkce: 'never',
  scopes: ['email', 'public_profile'],
  clientAuth: 'client_secret_post',
  credentials: (config) => clientCredentials(config.FACEBOOK_CLIENT_ID, config.FACEBOOK_CLIENT_SECRET),
  callbackUrl: (config) => config.FACEBOOK_CALLBACK_URL,
  endpoints: (config) => ({ authorization: config.FACEBOOK_AUTHORIZATION_URL, token: config.FACEBOOK_TOKEN_URL }),
  async profile(api, config) {
    const url = new URL(config.FACEBOOK_USERINFO_URL);
    url.searchParams.set('fields', 'id,name,email,picture');
    url.searchParams.set('appsecret_proof', createHmac('sha256', config.FACEBOOK_CLIENT_SECRET ?? '').update(api.accessToken).digest('hex'));
    const me = (await api.getJson(url.href)) as { id?: unknown; name?: unknown; email?: unknown; picture?: { data?: { url?: unknown } } };
    return {
      providerAccountId: accountIdOf(me.id) ?? '',
      email: plainEmail(me.email),
      emailVerified: false,
      name: displayNameOf(me.name),
      image: imageOf(me.picture?.data?.url),
    };
  },
};
