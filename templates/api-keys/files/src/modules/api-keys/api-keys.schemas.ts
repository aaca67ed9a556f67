import { z } from 'zod';
import type { Config } from '../../config.js';
import { nameText } from '../../http/display-name.js';
import { scopesField } from './scopes.js';

/** A key's name: one line, at most 100 characters, the same characters refused as in every name. */
const name = nameText(100).min(1, 'name is required');

/** 1 to 365 days; omitted, the key does not expire. */
const expiresInDays = z
  .number({ error: 'expiresInDays must be a whole number of days from 1 to 365' })
  .int('expiresInDays must be a whole number of days from 1 to 365')
  .min(1, 'expiresInDays must be a whole number of days from 1 to 365')
  .max(365, 'expiresInDays must be a whole number of days from 1 to 365');

export const newKeyBody = (config: Config) =>
  z.object({
    name,
    scopes: scopesField(config).optional(),
    expiresInDays: expiresInDays.optional(),
  });

export const renameKeyBody = z.object({ name });

export type NewKeyInput = z.infer<ReturnType<typeof newKeyBody>>;
