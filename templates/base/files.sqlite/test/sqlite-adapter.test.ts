import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ColumnTypeEnum, type SqlQuery } from '@prisma/driver-adapter-utils';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAdapter } from '../src/db/sqlite-adapter.js';
import { SqlReads, type AdapterQueryable } from '../src/db/sql-reads.js';
import { SqliteConnection, sqlitePath } from '../src/db/sqlite-connection.js';

const files: string[] = [];
const adapters: SqliteAdapter[] = [];

async function open(): Promise<{ adapter: SqliteAdapter; file: string }> {
  const file = path.join(tmpdir(), `adapter-test-${randomUUID()}.db`);
  files.push(file);
  const adapter = new SqliteAdapter(new SqliteConnection(file));
  adapters.push(adapter);
  await adapter.executeScript('CREATE TABLE item (id TEXT PRIMARY KEY, n INTEGER, flag BOOLEAN, data BLOB, at DATETIME, name TEXT NOT NULL DEFAULT \'\')');
  return { adapter, file };
}

const sql = (text: string, ...args: unknown[]): SqlQuery => ({
  sql: text,
  args,
  argTypes: args.map((arg) => ({ scalarType: arg instanceof Date ? 'datetime' : typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' as const })),
});

afterEach(async () => {
  for (const adapter of adapters.splice(0)) await adapter.dispose();
  for (const file of files.splice(0)) for (const suffix of ['', '-journal']) rmSync(`${file}${suffix}`, { force: true });
});

describe('a page of rows read as one JSON array', () => {
  it('comes back in the order of its id column, whatever order the database put in the array', async () => {
    const { adapter } = await open();
    for (const id of ['c', 'a', 'd', 'b']) await adapter.executeRaw(sql('INSERT INTO item (id, n, name) VALUES (?, ?, ?)', id, id.charCodeAt(0), `name ${id}`));
    // An array built in the reverse order stands for SQLite's unpromised one.
    // The adapter as db/database.ts hands it over: SqlReads runs the same queries on it.
    const reads = new SqlReads(() => Promise.resolve(adapter) as Promise<AdapterQueryable>, {
      placeholder: () => '?',
      table: (name) => `"${name}"`,
      jsonRows: (select, columns) => `SELECT json_group_array(json_array(${columns.map((column) => `"${column}"`).join(', ')}) ORDER BY "id" DESC) FROM (${select})`,
    });
    const rows = await reads.manyRows('SELECT "id", "name" FROM {item} WHERE "id" > ? ORDER BY "id" LIMIT ?', { columns: ['id', 'name'], orderBy: 'id' }, ['a', 10]);
    expect(rows).toEqual([
      ['b', 'name b'],
      ['c', 'name c'],
      ['d', 'name d'],
    ]);
  });
});

describe("the SQLite adapter under Prisma", () => {
  it("answers with Prisma's column types: declared types, integers as numbers, blobs as bytes, dates as ISO text", async () => {
    const { adapter } = await open();
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(await adapter.executeRaw(sql('INSERT INTO item (id, n, flag, data, at) VALUES (?, ?, ?, ?, ?)', 'a', 42, true, new Uint8Array([1, 2, 3]), at))).toBe(1);
    const result = await adapter.queryRaw(sql('SELECT id, n, flag, data, at, count(*) AS total FROM item'));
    expect(result.columnNames).toEqual(['id', 'n', 'flag', 'data', 'at', 'total']);
    expect(result.columnTypes).toEqual([ColumnTypeEnum.Text, ColumnTypeEnum.Int32, ColumnTypeEnum.Boolean, ColumnTypeEnum.Bytes, ColumnTypeEnum.DateTime, ColumnTypeEnum.UnknownNumber]);
    const [row] = result.rows;
    expect(row!.slice(0, 3)).toEqual(['a', 42, 1]);
    expect([...(row![3] as Uint8Array)]).toEqual([1, 2, 3]);
    // Dates are stored as Prisma's libSQL adapter stores them, so existing databases read the same.
    expect(row![4]).toBe('2026-01-02T03:04:05.000+00:00');
    expect(row![5]).toBe(1);
  });

  it('reads one row as queryRaw reads it, and waits for a transaction in progress like every query', async () => {
    const { adapter } = await open();
    for (const id of ['a', 'b']) await adapter.executeRaw(sql('INSERT INTO item (id, n, at) VALUES (?, ?, ?)', id, 7, new Date('2026-01-02T03:04:05.000Z')));
    const all = await adapter.queryRaw(sql('SELECT id, n, at FROM item ORDER BY id'));
    const first = await adapter.queryFirstRow(sql('SELECT id, n, at FROM item ORDER BY id'));
    expect(first).toEqual({ ...all, rows: [all.rows[0]] });
    expect((await adapter.queryFirstRow(sql('SELECT id FROM item WHERE id = ?', 'none'))).rows).toEqual([]);

    const tx = await adapter.startTransaction();
    await tx.executeRaw(sql('DELETE FROM item WHERE id = ?', 'a'));
    const outside = adapter.queryFirstRow(sql('SELECT id FROM item ORDER BY id'));
    await tx.rollback();
    // It ran after the rollback: the uncommitted delete was never visible to it.
    expect((await outside).rows).toEqual([['a']]);
  });

  it('refuses an integer a JavaScript number cannot hold instead of rounding it', async () => {
    const { adapter } = await open();
    await adapter.executeRaw({ sql: 'INSERT INTO item (id, n) VALUES (?, ?)', args: ['big', String(2n ** 60n)], argTypes: [{ scalarType: 'string', arity: 'scalar' }, { scalarType: 'bigint', arity: 'scalar' }] });
    await expect(adapter.queryRaw(sql('SELECT n FROM item'))).rejects.toThrow(RangeError);
  });

  it("reports constraint errors as Prisma's kinds, and keeps working after them", async () => {
    const { adapter } = await open();
    const insert = sql('INSERT INTO item (id) VALUES (?)', 'same');
    await adapter.executeRaw(insert);
    await expect(adapter.executeRaw(insert)).rejects.toMatchObject({ name: 'DriverAdapterError', cause: { kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } } });
    await expect(adapter.executeRaw(sql('INSERT INTO item (id, name) VALUES (?, NULL)', 'x'))).rejects.toMatchObject({ cause: { kind: 'NullConstraintViolation', constraint: { fields: ['name'] } } });
    await expect(adapter.queryRaw(sql('SELECT * FROM missing'))).rejects.toMatchObject({ cause: { kind: 'TableDoesNotExist' } });
    await adapter.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'other'));
    expect((await adapter.queryRaw(sql('SELECT count(*) FROM item'))).rows[0]![0]).toBe(2);
  });

  it('runs transactions on its one connection: commit keeps, rollback drops, savepoints roll back part', async () => {
    const { adapter } = await open();
    const kept = await adapter.startTransaction();
    await kept.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'kept'));
    await kept.createSavepoint!('part');
    await kept.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'undone'));
    await kept.rollbackToSavepoint!('part');
    await kept.commit();
    const dropped = await adapter.startTransaction();
    await dropped.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'dropped'));
    await dropped.rollback();
    await expect(dropped.queryRaw(sql('SELECT 1'))).rejects.toMatchObject({ cause: { kind: 'TransactionAlreadyClosed' } });
    expect((await adapter.queryRaw(sql('SELECT id FROM item'))).rows).toEqual([['kept']]);
  });

  it("keeps other queries out of an open transaction: they wait for it and never see its uncommitted rows", async () => {
    const { adapter } = await open();
    const transaction = await adapter.startTransaction();
    await transaction.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'pending'));
    const order: string[] = [];
    const outside = adapter.queryRaw(sql('SELECT count(*) FROM item')).then((result) => {
      order.push('read');
      return result.rows[0]![0];
    });
    const second = adapter.startTransaction().then((next) => {
      order.push('second transaction');
      return next.rollback();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    order.push('commit');
    await transaction.commit();
    expect(await outside).toBe(1);
    await second;
    expect(order).toEqual(['commit', 'read', 'second transaction']);
  });

  it('answers SQLITE_BUSY while another process holds the database (a timeout to Prisma), then writes again once it lets go', async () => {
    const { adapter, file } = await open();
    const other = new Database(file);
    other.exec('BEGIN EXCLUSIVE');
    await expect(adapter.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'x'))).rejects.toMatchObject({ cause: { kind: 'SocketTimeout', originalCode: '5' } });
    const transaction = await adapter.startTransaction();
    await expect(transaction.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'y'))).rejects.toMatchObject({ cause: { kind: 'SocketTimeout' } });
    // The connection was reopened, which ended the transaction: nothing can be committed by mistake.
    await expect(transaction.commit()).rejects.toMatchObject({ cause: { kind: 'TransactionAlreadyClosed' } });
    other.exec('ROLLBACK');
    other.close();
    await adapter.executeRaw(sql('INSERT INTO item (id) VALUES (?)', 'x'));
    expect((await adapter.queryRaw(sql('SELECT id FROM item'))).rows).toEqual([['x']]);
  });

  it('reads file: URLs', () => {
    expect(sqlitePath('file:./dev.db')).toBe('./dev.db');
    expect(sqlitePath('file:/srv/app.db')).toBe('/srv/app.db');
    expect(sqlitePath('file:///srv/app.db')).toBe('/srv/app.db');
    expect(sqlitePath('file://localhost/srv/my%20app.db')).toBe('/srv/my app.db');
    expect(() => sqlitePath('file://example.com/app.db')).toThrow(/host/);
    expect(() => sqlitePath('postgresql://localhost/app')).toThrow(/file: URL/);
  });
});
