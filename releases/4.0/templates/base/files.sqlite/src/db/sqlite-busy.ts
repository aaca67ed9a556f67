import type { Client, Transaction } from '@libsql/client';

/**
 * WORKAROUND for tursodatabase/libsql-client-ts#352 (seen with @libsql/client 0.18.0 on `libsql`
 * 0.5.29). A statement that fails with SQLITE_BUSY (another process held the database) is left in
 * progress until the garbage collector finalizes it. Until then its connection never finishes a
 * read (the file stays locked for every other process) and every transaction on it fails to commit
 * ("SQL statements in progress"). Closing the client's connections right away, before anything
 * else runs on them, drops that state; the client opens new ones on its next query.
 *
 * Remove this file (and its use in client.ts) once the installed `libsql` resets a statement whose
 * step failed: tursodatabase/libsql-js#237. test/sqlite-busy.test.ts shows whether it is needed.
 */
export function reconnectingAfterBusy(client: Client): Client {
  const recover = async <T>(work: Promise<T>, transaction?: Transaction): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      if (isBusy(error)) {
        // A transaction is rolled back first, so nothing it holds outlives its connection.
        await transaction?.rollback().catch(() => {});
        client.reconnect();
      }
      throw error;
    }
  };
  const inTransaction = (transaction: Transaction): Transaction =>
    delegate(transaction, {
      execute: (...args: Parameters<Transaction['execute']>) => recover(transaction.execute(...args), transaction),
      commit: () => recover(transaction.commit(), transaction),
    });
  return delegate(client, {
    execute: (...args: Parameters<Client['execute']>) => recover(client.execute(...args)),
    transaction: async (...args: Parameters<Client['transaction']>) => inTransaction(await recover(client.transaction(...args))),
  });
}

const SQLITE_BUSY = 5;

/** SQLITE_BUSY or one of its extended codes (the low byte of the code). */
const isBusy = (error: unknown) => ((error as { rawCode?: number } | null)?.rawCode ?? 0) % 256 === SQLITE_BUSY;

/** `target` with some methods replaced; the others still run on `target` itself. */
function delegate<T extends object>(target: T, replaced: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, key) {
      if (Object.hasOwn(replaced, key)) return replaced[key as keyof T];
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
