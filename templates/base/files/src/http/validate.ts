import type { z } from 'zod';
import { AppError } from './app-error.js';

/**
 * Validates input against a schema. Unknown fields are dropped (zod objects strip them), so a
 * body can never set a field the server owns.
 */
export function validate<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const nulPath = findNulCharacter(input);
  if (nulPath !== undefined) {
    throw new AppError(400, 'VALIDATION_ERROR', 'The request is invalid.', [{ path: nulPath || 'body', message: 'must not contain NUL characters' }]);
  }
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new AppError(
    400,
    'VALIDATION_ERROR',
    'The request is invalid.',
    result.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message })),
  );
}

/** NUL characters are refused everywhere: databases such as PostgreSQL cannot store them in text. */
function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNulCharacter(item, path ? `${path}.${key}` : key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
