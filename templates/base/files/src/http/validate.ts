import type { z } from 'zod';
import { AppError } from './app-error.js';

/**
 * Validates input against a schema. Unknown fields are dropped (zod objects strip them), so a
 * body can never set a field the server owns.
 */
export function validate<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new AppError(
    400,
    'VALIDATION_ERROR',
    'The request is invalid.',
    result.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message })),
  );
}
