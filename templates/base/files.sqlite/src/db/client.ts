import { LibsqlError, type Client, type Config, type InStatement, type Transaction, type TransactionMode } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';

const SQLITE_BUSY = 5;

const isBusy = (error: unknown) => (error as { rawCode?: number } | null)?.rawCode === SQLITE_BUSY;

const BEGIN: Record<TransactionMode, string> = { write: 'BEGIN IMMEDIATE', read: 'BEGIN TRANSACTION READONLY', deferred: 'BEGIN DEFERRED' };

/**
 * A transaction on the client's own connection.
 *
 * @libsql/client (0.17) runs each transaction on the connection it has, opens a new connection
 * for whatever comes next, and never closes the old one: every transaction left an open file and
 * its memory behind, until the process ran out of file descriptors (SQLITE_CANTOPEN) after a few
 * thousand sign-ups or organization changes. Prisma's adapter already lets one transaction at a
 * time use the client, with no other query meanwhile, so the connection can simply be shared.
 */
async function transactionOn(client: Client, mode: TransactionMode): Promise<Transaction> {
  await client.execute(BEGIN[mode]);
  let open = true;
  const run = async (statement: InStatement) => {
    if (!open) throw new LibsqlError('The transaction is closed', 'TRANSACTION_CLOSED');
    try {
      return await client.execute(statement);
    } catch (error) {
      // After SQLITE_BUSY the client has reconnected, and the transaction went with the old connection.
      if (isBusy(error)) open = false;
      throw error;
    }
  };
  const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    try {
      await client.execute(sql);
    } catch (error) {
      // A COMMIT that failed leaves the transaction open on the shared connection: end it.
      if (sql === 'COMMIT') await client.execute('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };
  return {
    execute: (statement: InStatement | string) => run(statement),
    batch: async (statements: InStatement[]) => {
      const results = [];
      for (const statement of statements) results.push(await run(statement));
      return results;
    },
    executeMultiple: () => Promise.reject(new LibsqlError('executeMultiple is not supported in a transaction', 'TRANSACTION_CLOSED')),
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
    close: () => void end('ROLLBACK').catch(() => undefined),
    get closed() {
      return !open;
    },
  } as Transaction;
}

/**
 * The libSQL client, with two fixes.
 * - libSQL (0.5) leaves a read open on its connection when a statement fails with SQLITE_BUSY
 *   (another process held the database), and from then on every write of the app would fail too.
 *   The client reconnects after such an error; the request that met the lock still gets its 503.
 * - Transactions share the client's connection (transactionOn above).
 */
class SqliteLibSql extends PrismaLibSql {
  override createClient(config: Config): Client {
    const client = super.createClient(config);
    const execute = client.execute.bind(client) as (...args: unknown[]) => ReturnType<Client['execute']>;
    client.execute = (async (...args: unknown[]) => {
      try {
        return await execute(...args);
      } catch (error) {
        if (isBusy(error)) await client.reconnect();
        throw error;
      }
    }) as Client['execute'];
    client.transaction = (mode: TransactionMode = 'write') => transactionOn(client, mode);
    return client;
  }
}

/** SQLite through libSQL: its native binaries come as npm packages, so installing needs no compiler. */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new SqliteLibSql({ url }) });
}
