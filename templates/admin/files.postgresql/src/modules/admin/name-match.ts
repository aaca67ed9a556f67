import type { Prisma } from '../../generated/prisma/client.js';

/** Users whose name contains `part`, whatever the case (ILIKE). */
export function nameContains(part: string): Prisma.UserWhereInput {
  return { name: { contains: part, mode: 'insensitive' } };
}
