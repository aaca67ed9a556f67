import { z } from 'zod';

/**
 * Characters a name may not contain: control characters (Unicode Cc, line breaks included), line
 * and paragraph separators, and bidirectional embeddings, overrides and isolates, which can make
 * text read differently from what it is (in a mail, for instance).
 */
const FORBIDDEN = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

export const NAME_MAX_LENGTH = 100;

/** A name as people type it: one line of at most 100 characters, trimmed. */
export const displayName = z
  .string({ error: 'name must be a string' })
  .trim()
  .max(NAME_MAX_LENGTH, `name must be at most ${NAME_MAX_LENGTH} characters`)
  .refine((value) => !FORBIDDEN.test(value), 'name must be one line of text without control or bidirectional-override characters');

/** A name from elsewhere (an identity provider, an older row) made to follow the same rules. */
export function cleanDisplayName(value: string | null | undefined): string | null {
  const cleaned = [...(value ?? '').replace(new RegExp(FORBIDDEN.source, 'gu'), ' ').replace(/\s+/g, ' ').trim()]
    .slice(0, NAME_MAX_LENGTH)
    .join('')
    .trim();
  return cleaned || null;
}
