import { z } from 'zod';
import { optionalString } from '../../../config/base-config.js';

/** Auth0's variables; both optional, so the app starts without Auth0 (the exchange answers 404 until they are set). */
export const auth0Config = {
  AUTH0_ISSUER_BASE_URL: optionalString.pipe(z.url().optional()),
  AUTH0_AUDIENCE: optionalString,
};
