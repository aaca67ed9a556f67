import { clientSettings, endpoint } from '../oauth-settings.js';

export const gitlabConfig = {
  ...clientSettings('GITLAB'),
  GITLAB_ISSUER: endpoint('https://gitlab.com'),
};
