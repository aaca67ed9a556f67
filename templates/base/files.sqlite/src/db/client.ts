import type { Client, Config } from '@libsql/client';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaClient } from '../generated/prisma/client.js';

const SQLITE_BUSY = 5;

const isBusy = (error: unknown) => (error as { rawCode?: number } | null)?.rawCode === SQLITE_BUSY;

/**
 * libSQL (0.5) leaves a read open on its connection when a statement fails with SQLITE_BUSY
 * (another process held the database), and from then on every write of the app would fail too.
 * This client reconnects after such an error; the request that met the lock still gets its 503.
 */
class ReconnectingLibSql extends PrismaLibSql {
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
    return client;
  }
}

/** SQLite through libSQL: its native binaries come as npm packages, so installing needs no compiler. */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new ReconnectingLibSql({ url }) });
}
