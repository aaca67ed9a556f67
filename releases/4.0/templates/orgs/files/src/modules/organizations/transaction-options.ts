/**
 * The transactions of this module are short, but under load they queue (SQLite runs one at a
 * time), so they may wait longer to start than Prisma's 2 second default.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 10_000 } as const;
