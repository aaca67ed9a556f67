import { clientSettings, endpoint } from '../oauth-settings.js';

export const facebookConfig = {
  ...clientSettings('FACEBOOK'),
  FACEBOOK_AUTHORIZATION_URL: endpoint('https://www.facebook.com/v26.0/dialog/oauth'),
  FACEBOOK_TOKEN_URL: endpoint('https://graph.facebook.com/v26.0/oauth/access_token'),
  FACEBOOK_USERINFO_URL: endpoint('https://graph.facebook.com/v26.0/me'),
};
