import { clientSettings, endpoint } from '../oauth-settings.js';

export const googleConfig = {
  ...clientSettings('GOOGLE'),
  GOOGLE_ISSUER: endpoint('https://accounts.google.com'),
};
