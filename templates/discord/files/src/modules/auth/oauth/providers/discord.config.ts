import { clientSettings, endpoint } from '../oauth-settings.js';

export const discordConfig = {
  ...clientSettings('DISCORD'),
  DISCORD_AUTHORIZATION_URL: endpoint('https://discord.com/oauth2/authorize'),
  DISCORD_TOKEN_URL: endpoint('https://discord.com/api/oauth2/token'),
  DISCORD_USERINFO_URL: endpoint('https://discord.com/api/users/@me'),
};
