import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';

/**
 * The engine replays each migration file with one executeRaw call, and libSQL's execute runs only
 * the first statement of a script (a migration that creates a table and its index would replay
 * half). A script without parameters therefore runs through executeScript, which runs them all.
 */
function replayingWholeScripts(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (query) => {
    if (query.args.length > 0) return executeRaw(query);
    await adapter.executeScript(query.sql);
    return 0;
  };
  return adapter;
}

/**
 * The schema engine's connection for db:migration: a scratch database file, deleted afterwards, on
 * which the engine replays the committed migrations. The app's own database is never opened.
 */
export function engineAdapter() {
  const dir = mkdtempSync(path.join(tmpdir(), 'db-migration-'));
  const scratch = new PrismaLibSql({ url: `file:${path.join(dir, 'scratch.db')}` });
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: scratch.provider,
    adapterName: scratch.adapterName,
    connect: () => scratch.connect(),
    connectToShadowDb: async () => replayingWholeScripts(await scratch.connect()),
  };
  return {
    factory: bindMigrationAwareSqlAdapterFactory(factory),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
