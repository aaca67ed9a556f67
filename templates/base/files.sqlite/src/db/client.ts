import { databaseOn, type Database } from './database.js';
import { SqliteAdapterFactory } from './sqlite-adapter.js';

/** SQLite on the `libsql` driver: its native binaries come as npm packages, so installing needs no compiler. */
export function createDatabase(url: string): Database {
  return databaseOn(new SqliteAdapterFactory(url), {
    placeholder: () => '?',
    table: (name) => `"${name}"`,
    jsonRows: (select, columns) => `SELECT json_group_array(json_array(${columns.map((column) => `"${column}"`).join(', ')})) FROM (${select})`,
  });
}
