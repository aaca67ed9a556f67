import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import type { OAuth2Provider } from '../oauth-provider.js';
import { accountIdOf, displayNameOf, imageOf, plainEmail } from '../profile-fields.js';

export const twitterConfig = {
  ...clientSettings('TWITTER'),
  TWITTER_AUTHORIZATION_URL: endpoint('https://x.com/i/oauth2/authorize'),
  TWITTER_TOKEN_URL: endpoint('https://api.x.com/2/oauth2/token'),
  TWITTER_USERINFO_URL: endpoint('https://api.x.com/2/users/me'),
};

/**
 * X (Twitter): OAuth 2.0 with PKCE (required) and HTTP Basic client authentication. The address
 * comes only as `confirmed_email` (scope users.email, user.fields=confirmed_email); its presence is
 * X's statement that it is confirmed.
 */
export const twitter: OAuth2Provider = {
  id: 'twitter',
  name: 'X',
  protocol: 'oauth2',
  pkce: 'always',
  scopes: ['tweet.read', 'users.read', 'users.email'],
  clientAuth: 'client_secret_basic',
  credentials: (config) => clientCredentials(config.TWITTER_CLIENT_ID, config.TWITTER_CLIENT_SECRET),
  callbackUrl: (config) => config.TWITTER_CALLBACK_URL,
  endpoints: (config) => ({ authorization: config.TWITTER_AUTHORIZATION_URL, token: config.TWITTER_TOKEN_URL }),
  async profile(api, config) {
    const url = new URL(config.TWITTER_USERINFO_URL);
    url.searchParams.set('user.fields', 'profile_image_url,confirmed_email');
    const { data } = (await api.getJson(url.href)) as { data?: Record<string, unknown> };
    const email = plainEmail(data?.confirmed_email);
    return {
      providerAccountId: accountIdOf(data?.id) ?? '',
      email,
      emailVerified: email !== null,
      name: displayNameOf(data?.name, data?.username),
      image: imageOf(data?.profile_image_url),
    };
  },
};
