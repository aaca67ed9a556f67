import { clientSettings, endpoint } from '../oauth-settings.js';

export const linkedinConfig = {
  ...clientSettings('LINKEDIN'),
  LINKEDIN_ISSUER: endpoint('https://www.linkedin.com/oauth'),
};
