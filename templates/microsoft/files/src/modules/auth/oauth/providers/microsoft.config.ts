import { z } from 'zod';
import { clientSettings, endpoint } from '../oauth-settings.js';

export const microsoftConfig = {
  ...clientSettings('MICROSOFT'),
  MICROSOFT_TENANT_ID: z.string().trim().min(1).default('common'),
  MICROSOFT_ISSUER: endpoint('https://login.microsoftonline.com/{tenant}/v2.0'),
};
