import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import type { OAuth2Provider } from '../oauth-provider.js';
import { accountIdOf, displayNameOf, imageOf, plainEmail } from '../profile-fields.js';

export const githubConfig = {
  ...clientSettings('GITHUB'),
  GITHUB_AUTHORIZATION_URL: endpoint('https://github.com/login/oauth/authorize'),
  GITHUB_TOKEN_URL: endpoint('https://github.com/login/oauth/access_token'),
  GITHUB_USERINFO_URL: endpoint('https://api.github.com/user'),
  GITHUB_EMAILS_URL: endpoint('https://api.github.com/user/emails'),
};

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** api.github.com refuses requests without a User-Agent. */
const API_HEADERS = { 'user-agent': 'gatekit-app', 'x-github-api-version': '2022-11-28' };

/**
 * GitHub: plain OAuth 2.0 with PKCE. `/user` has no verified flag (its `email` is only the public
 * address), so the address is the primary entry of `/user/emails`, verified only when that entry
 * says `verified: true`.
 */
export const github: OAuth2Provider = {
  id: 'github',
  name: 'GitHub',
  protocol: 'oauth2',
  pkce: 'always',
  scopes: ['read:user', 'user:email'],
  clientAuth: 'client_secret_post',
  credentials: (config) => clientCredentials(config.GITHUB_CLIENT_ID, config.GITHUB_CLIENT_SECRET),
  callbackUrl: (config) => config.GITHUB_CALLBACK_URL,
  endpoints: (config) => ({ authorization: config.GITHUB_AUTHORIZATION_URL, token: config.GITHUB_TOKEN_URL }),
  async profile(api, config) {
    const user = (await api.getJson(config.GITHUB_USERINFO_URL, API_HEADERS)) as Record<string, unknown>;
    const emails = (await api.getJson(config.GITHUB_EMAILS_URL, API_HEADERS)) as GithubEmail[];
    const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary) : undefined;
    return {
      providerAccountId: accountIdOf(user.id) ?? '',
      email: plainEmail(primary?.email),
      emailVerified: primary?.verified === true,
      name: displayNameOf(user.name, user.login),
      image: imageOf(user.avatar_url),
    };
  },
};
