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

/**
 * NUL characters are refused everywhere: databases such as PostgreSQL cannot store them in text.
 * The scan keeps its own stack, so a deeply nested body cannot overflow the call stack.
 */
function findNulCharacter(input: unknown): string | undefined {
  const pending: [value: unknown, path: string][] = [[input, '']];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value === 'string' && value.includes('\u0000')) return path;
    if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) pending.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return undefined;
}
