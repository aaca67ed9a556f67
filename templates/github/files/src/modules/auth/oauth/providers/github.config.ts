import { clientSettings, endpoint } from '../oauth-settings.js';

export const githubConfig = {
  ...clientSettings('GITHUB'),
  GITHUB_AUTHORIZATION_URL: endpoint('https://github.com/login/oauth/authorize'),
  GITHUB_TOKEN_URL: endpoint('https://github.com/login/oauth/access_token'),
  GITHUB_USERINFO_URL: endpoint('https://api.github.com/user'),
  GITHUB_EMAILS_URL: endpoint('https://api.github.com/user/emails'),
};
