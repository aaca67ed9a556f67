import type { Prisma } from '../../generated/prisma/client.js';

/**
 * Users whose name contains `part`. SQLite's LIKE, which this becomes, already ignores case, but
 * only for the letters A to Z: "élise" does not find "Élise" (PostgreSQL's ILIKE does).
 */
export function nameContains(part: string): Prisma.UserWhereInput {
  return { name: { contains: part } };
}
