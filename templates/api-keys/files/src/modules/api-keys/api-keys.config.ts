import { z } from 'zod';
import { wholeNumber } from '../../config/base-config.js';

export const apiKeysConfig = {
  API_KEY_SCOPES: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((scope) => scope.trim()).filter(Boolean))
    .refine((scopes) => scopes.every((scope) => /^[a-z0-9:_-]{1,64}$/.test(scope)), 'must be scopes separated by commas, each made of a-z, 0-9, ":", "_" and "-"'),
  API_KEYS_MAX: wholeNumber(1, 10_000).default(50),
  API_KEY_RATE_LIMIT: wholeNumber(0, 1_000_000).default(600),
};
