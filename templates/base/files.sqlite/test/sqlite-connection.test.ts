import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteConnection, sqlitePath } from '../src/db/sqlite-connection.js';

const files: string[] = [];
const connections: SqliteConnection[] = [];

function open(): { connection: SqliteConnection; file: string } {
  const file = path.join(tmpdir(), `connection-test-${randomUUID()}.db`);
  files.push(file);
  const connection = new SqliteConnection(file);
  connections.push(connection);
  connection.run('CREATE TABLE item (id TEXT PRIMARY KEY, n INTEGER, flag BOOLEAN, data BLOB, at DATETIME)');
  return { connection, file };
}

afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
  for (const file of files.splice(0)) for (const suffix of ['', '-journal']) rmSync(`${file}${suffix}`, { force: true });
});

describe('the SQLite connection under Prisma', () => {
  it('answers as @libsql/client does: columns, declared types, integers as numbers, blobs as ArrayBuffers', async () => {
    const { connection } = open();
    await connection.execute({ sql: 'INSERT INTO item VALUES (?, ?, ?, ?, ?)', args: ['a', 42, true, new Uint8Array([1, 2, 3]).buffer, '2026-01-02T03:04:05.000+00:00'] });
    const result = await connection.execute('SELECT id, n, flag, data, at FROM item');
    expect(result.columns).toEqual(['id', 'n', 'flag', 'data', 'at']);
    expect(result.columnTypes).toEqual(['TEXT', 'INTEGER', 'BOOLEAN', 'BLOB', 'DATETIME']);
    const [row] = result.rows as unknown as unknown[][];
    expect(row!.slice(0, 3)).toEqual(['a', 42, 1]);
    expect([...new Uint8Array(row![3] as ArrayBuffer)]).toEqual([1, 2, 3]);
    expect(row![4]).toBe('2026-01-02T03:04:05.000+00:00');
    const inserted = await connection.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['b'] });
    expect(inserted.rowsAffected).toBe(1);
  });

  it('refuses an integer a JavaScript number cannot hold instead of rounding it', async () => {
    const { connection } = open();
    await connection.execute({ sql: 'INSERT INTO item (id, n) VALUES (?, ?)', args: ['big', 2n ** 60n] });
    await expect(connection.execute('SELECT n FROM item')).rejects.toThrow(RangeError);
  });

  it('keeps working after a statement fails: a constraint error, then the same statement again', async () => {
    const { connection } = open();
    const insert = { sql: 'INSERT INTO item (id) VALUES (?)', args: ['same'] };
    await connection.execute(insert);
    await expect(connection.execute(insert)).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
    await connection.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['other'] });
    expect((await connection.execute('SELECT count(*) FROM item')).rows[0]![0]).toBe(2);
  });

  it('runs transactions on its one connection: commit keeps, rollback drops, and no connection is left open', async () => {
    const { connection } = open();
    const kept = await connection.transaction('write');
    await kept.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['kept'] });
    await kept.commit();
    const dropped = await connection.transaction('write');
    await dropped.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['dropped'] });
    await dropped.rollback();
    expect(dropped.closed).toBe(true);
    await expect(dropped.execute('SELECT 1')).rejects.toMatchObject({ code: 'TRANSACTION_CLOSED' });
    expect((await connection.execute('SELECT id FROM item')).rows.map((row) => row[0])).toEqual(['kept']);
  });

  it('answers SQLITE_BUSY while another process holds the database, then writes again once it lets go', async () => {
    const { connection, file } = open();
    const other = new Database(file);
    other.exec('BEGIN EXCLUSIVE');
    await expect(connection.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['x'] })).rejects.toMatchObject({ code: 'SQLITE_BUSY', rawCode: 5 });
    other.exec('ROLLBACK');
    other.close();
    await connection.execute({ sql: 'INSERT INTO item (id) VALUES (?)', args: ['x'] });
    expect((await connection.execute('SELECT count(*) FROM item')).rows[0]![0]).toBe(1);
  });

  it('reads file: URLs as @libsql/client does', () => {
    expect(sqlitePath('file:./dev.db')).toBe('./dev.db');
    expect(sqlitePath('file:/srv/app.db')).toBe('/srv/app.db');
    expect(sqlitePath('file:///srv/app.db')).toBe('/srv/app.db');
    expect(sqlitePath('file://localhost/srv/my%20app.db')).toBe('/srv/my app.db');
    expect(() => sqlitePath('file://example.com/app.db')).toThrow(/host/);
    expect(() => sqlitePath('postgresql://localhost/app')).toThrow(/file: URL/);
  });
});
