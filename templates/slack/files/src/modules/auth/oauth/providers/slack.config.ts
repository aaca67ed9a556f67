import { clientSettings, endpoint } from '../oauth-settings.js';

export const slackConfig = {
  ...clientSettings('SLACK'),
  SLACK_ISSUER: endpoint('https://slack.com'),
};
