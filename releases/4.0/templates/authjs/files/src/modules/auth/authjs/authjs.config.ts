import { z } from 'zod';
import { optionalString } from '../../../config/base-config.js';

/** AUTH_SECRET signs and encrypts Auth.js's cookies and hashes its mailed tokens; empty: Auth.js is off. */
export const authjsConfig = {
  AUTH_SECRET: optionalString.pipe(z.string().min(32, 'AUTH_SECRET must be at least 32 characters').optional()),
};
