import { clientSettings, endpoint } from '../oauth-settings.js';

export const twitchConfig = {
  ...clientSettings('TWITCH'),
  TWITCH_ISSUER: endpoint('https://id.twitch.tv/oauth2'),
};
