import { clientCredentials, clientSettings, endpoint } from '../oauth-settings.js';
import { oidcProvider } from '../oidc-provider.js';
import { text } from '../profile-fields.js';

export const slackConfig = {
  ...clientSettings('SLACK'),
  SLACK_ISSUER: endpoint('https://slack.com'),
};

/**
 * Sign in with Slack (OpenID Connect, no PKCE). A Slack user id is unique within its workspace
 * only, so the account id is the team id and the user id together.
 */
export const slack = oidcProvider({
  id: 'slack',
  name: 'Slack',
  issuer: (config) => config.SLACK_ISSUER,
  credentials: (config) => clientCredentials(config.SLACK_CLIENT_ID, config.SLACK_CLIENT_SECRET),
  callbackUrl: (config) => config.SLACK_CALLBACK_URL,
  pkce: 'never',
  accountId: (claims) => {
    const team = text(claims['https://slack.com/team_id']);
    const user = text(claims.sub);
    return team && user ? `${team}.${user}` : undefined;
  },
});
