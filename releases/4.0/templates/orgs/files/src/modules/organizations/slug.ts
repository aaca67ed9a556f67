import { z } from 'zod';

export const SLUG_MIN_LENGTH = 3;
export const SLUG_MAX_LENGTH = 48;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const SLUG_RULE = `slug must be ${SLUG_MIN_LENGTH} to ${SLUG_MAX_LENGTH} characters: lowercase a-z and 0-9 words joined by single hyphens`;

export const slug = z
  .string({ error: 'slug must be a string' })
  .trim()
  .min(SLUG_MIN_LENGTH, SLUG_RULE)
  .max(SLUG_MAX_LENGTH, SLUG_RULE)
  .regex(SLUG_PATTERN, SLUG_RULE);

export function isValidSlug(value: string): boolean {
  return slug.safeParse(value).success;
}

/** "Café Society, Inc." -> "cafe-society-inc": accents dropped, everything else becomes a hyphen. */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
}
