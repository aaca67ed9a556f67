import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';

export const gitlabConfig = {
  ...clientSettings('GITLAB'),
  GITLAB_ISSUER: endpoint('https://gitlab.com'),
};

/** GitLab.com or a self-hosted GitLab (GITLAB_ISSUER): OpenID Connect with PKCE. */
export const gitlab = oidcProvider({
  id: 'gitlab',
  name: 'GitLab',
  issuer: (config) => config.GITLAB_ISSUER,
  credentials: (config) => clientCredentials(config.GITLAB_CLIENT_ID, config.GITLAB_CLIENT_SECRET),
  callbackUrl: (config) => config.GITLAB_CALLBACK_URL,
});
