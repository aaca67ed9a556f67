import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import type { OAuth2Provider } from '../oauth-provider.js';
import { accountIdOf, displayNameOf, plainEmail, text } from '../profile-fields.js';

export const discordConfig = {
  ...clientSettings('DISCORD'),
  DISCORD_AUTHORIZATION_URL: endpoint('https://discord.com/oauth2/authorize'),
  DISCORD_TOKEN_URL: endpoint('https://discord.com/api/oauth2/token'),
  DISCORD_USERINFO_URL: endpoint('https://discord.com/api/users/@me'),
};

/** Discord: OAuth 2.0 with PKCE; `/users/@me` says whether the address is `verified`. */
export const discord: OAuth2Provider = {
  id: 'discord',
  name: 'Discord',
  protocol: 'oauth2',
  pkce: 'always',
  scopes: ['identify', 'email'],
  clientAuth: 'client_secret_basic',
  credentials: (config) => clientCredentials(config.DISCORD_CLIENT_ID, config.DISCORD_CLIENT_SECRET),
  callbackUrl: (config) => config.DISCORD_CALLBACK_URL,
  endpoints: (config) => ({ authorization: config.DISCORD_AUTHORIZATION_URL, token: config.DISCORD_TOKEN_URL }),
  async profile(api, config) {
    const me = (await api.getJson(config.DISCORD_USERINFO_URL)) as Record<string, unknown>;
    const id = accountIdOf(me.id);
    const avatar = text(me.avatar);
    return {
      providerAccountId: id ?? '',
      email: plainEmail(me.email),
      emailVerified: me.verified === true,
      name: displayNameOf(me.global_name, me.username),
      image: id && avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null,
    };
  },
};
