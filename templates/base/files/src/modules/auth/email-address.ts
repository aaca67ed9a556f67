import { z } from 'zod';

/**
 * One plain address: trimmed and lowercased; no lists, display names, quoted local parts or
 * line breaks, so a mail can never be sent to a second address.
 */
export const emailAddress = z
  .string({ error: 'email is required' })
  .trim()
  .toLowerCase()
  .max(254, 'email is too long')
  .refine((value) => !/[\s,;"<>()\\]/.test(value), 'email must be a single plain address')
  .pipe(z.email('email must be a valid address'));
