import { clientSettings, endpoint } from '../oauth-settings.js';

export const twitterConfig = {
  ...clientSettings('TWITTER'),
  TWITTER_AUTHORIZATION_URL: endpoint('https://x.com/i/oauth2/authorize'),
  TWITTER_TOKEN_URL: endpoint('https://api.x.com/2/oauth2/token'),
  TWITTER_USERINFO_URL: endpoint('https://api.x.com/2/users/me'),
};
