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
/** PostgreSQL's own: the server shutting down or starting up, a lost connection, statement_timeout. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '08000', '08001', '08003', '08006']);
/** The pg driver's own timeouts and lost connections carry no code, only these messages. */
const UNAVAILABLE_DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error/,
];

/** True when an error means the database cannot be reached, rather than a bug or a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const candidate = current as { name?: string; code?: string; kind?: string; message?: string; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    if (candidate.name === 'PrismaClientInitializationError') return true;
    if (candidate.code && (UNAVAILABLE_PRISMA_CODES.has(candidate.code) || UNAVAILABLE_SYSTEM_CODES.has(candidate.code))) return true;
    if (candidate.kind === 'postgres' && candidate.code && UNAVAILABLE_SQLSTATES.has(candidate.code)) return true;
    if (typeof candidate.message === 'string' && UNAVAILABLE_DRIVER_MESSAGES.some((pattern) => pattern.test(candidate.message!))) return true;
    if (candidate.kind && UNAVAILABLE_DRIVER_KINDS.has(candidate.kind)) return true;
    current = candidate.meta?.driverAdapterError ?? candidate.cause;
  }
  return false;
}

/** True when the row an update or delete names is not there (Prisma P2025). */
export function isMissingRecord(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'P2025';
}

/** True for a unique-constraint violation (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'P2002';
}
