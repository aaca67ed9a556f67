const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const UNAVAILABLE_DRIVER_KINDS = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'SocketTimeout',
  'ConnectionClosed',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'SQLITE_BUSY', 'SQLITE_CANTOPEN']);

/** True when an error means the database cannot be reached, rather than a bug or a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const candidate = current as { name?: string; code?: string; kind?: string; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (candidate.name === 'PrismaClientInitializationError') return true;
    if (candidate.code && (UNAVAILABLE_PRISMA_CODES.has(candidate.code) || UNAVAILABLE_SYSTEM_CODES.has(candidate.code))) return true;
    if (candidate.kind && UNAVAILABLE_DRIVER_KINDS.has(candidate.kind)) return true;
    current = candidate.meta?.driverAdapterError ?? candidate.cause;
  }
  return false;
}

/** True for a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'P2002';
}
