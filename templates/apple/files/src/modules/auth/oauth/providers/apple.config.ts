import { endpoint, optional, optionalUrl } from '../oauth-settings.js';

/** Apple has no client secret to configure: the app signs one (signedClientSecret in apple.ts). */
export const appleConfig = {
  APPLE_CLIENT_ID: optional,
  APPLE_CALLBACK_URL: optionalUrl,
  APPLE_TEAM_ID: optional,
  APPLE_KEY_ID: optional,
  /** The .p8 key; in one line with \n escapes, as .env files hold it. */
  APPLE_PRIVATE_KEY: optional.transform((value) => value?.replace(/\\n/g, '\n')),
  APPLE_ISSUER: endpoint('https://appleid.apple.com'),
};
