import { z } from 'zod';

/** How many ASCII characters a string holds. */
const asciiLength = (value: string): number => value.replace(/[\u0080-\uffff]/g, '').length;

/**
 * One plain address: trimmed and lowercased; no lists, display names, quoted local parts or
 * line breaks, so a mail can never be sent to a second address. Lowercasing must not turn a
 * non-ASCII character into an ASCII one (the Kelvin sign U+212A becomes "k", U+0130 an "i"),
 * or "\u212Aate@x.test" would reach kate@x.test's account: such an address is refused.
 */
export const emailAddress = z
  .string({ error: 'email is required' })
  .trim()
  .refine((value) => asciiLength(value.toLowerCase()) === asciiLength(value), 'email must be a valid address')
  .toLowerCase()
  .max(254, 'email is too long')
  .refine((value) => !/[\s,;"<>()\\]/.test(value), 'email must be a single plain address')
  .pipe(z.email('email must be a valid address'));
