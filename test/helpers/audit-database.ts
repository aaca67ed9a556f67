import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { childEnv } from './app-process.js';
import type { PreparedFixture } from './fixtures.js';
import { parsePostgresUrl } from './schema-engine.js';
import { openSqlite, sqliteDate } from './sqlite-file.js';

/**
 * A generated app's database as someone with write access to it sees it (the tampering tests), or
 * as a test that must stand for time passing (moving a retry's due time into the past). Queries
 * are written with $1, $2, … in order; SQLite gets them as ?. Dates come back as the database
 * stores them (timestamps as text on PostgreSQL too), so a row read can be written back unchanged.
 */
export interface AuditDatabase {
  all<Row = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<Row[]>;
  run(sql: string, ...params: unknown[]): Promise<number>;
  /** A date in the form the database stores DateTime columns. */
  date(ms: number): string;
  close(): Promise<void>;
}

export function openAuditDatabase(url: string): AuditDatabase {
  if (url.startsWith('file:')) {
    let db: Database.Database | undefined;
    const open = () => (db ??= openSqlite(url, { timeout: 10_000 }));
    const sqlite = (sql: string) => open().prepare(sql.replace(/\$\d+/g, '?'));
    return {
      all: async <Row>(sql: string, ...params: unknown[]) => sqlite(sql).all(...params) as Row[],
      run: async (sql, ...params) => sqlite(sql).run(...params).changes,
      date: sqliteDate,
      close: async () => {
        db?.close();
      },
    };
  }
  const { connectionString, schema } = parsePostgresUrl(url);
  const TIMESTAMP = 1114;
  const pool = new pg.Pool({
    connectionString,
    options: `-c search_path="${schema.replace(/"/g, '""')}"`,
    max: 2,
    // Timestamps as text: node-postgres would read them in the machine's time zone.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === TIMESTAMP ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  return {
    all: async <Row>(sql: string, ...params: unknown[]) => (await pool.query(sql, params)).rows as Row[],
    run: async (sql, ...params) => (await pool.query(sql, params)).rowCount ?? 0,
    date: (ms) => new Date(ms).toISOString().replace('T', ' ').replace('Z', ''),
    close: () => pool.end(),
  };
}

/** A DateTime column's value as a Date, from either database's stored form. */
export function storedDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value));
  const text = String(value);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

export interface AuditRow {
  id: string;
  seq: number;
  occurredAt: unknown;
  action: string;
  actorType: string;
  actorId: string | null;
  targetType: string | null;
  targetId: string | null;
  organizationId: string | null;
  ip: string | null;
  userAgent: string | null;
  metadata: string;
  prevHash: string;
  hash: string;
}

export async function auditRows(db: AuditDatabase, where = 'TRUE', ...params: unknown[]): Promise<AuditRow[]> {
  const rows = await db.all<AuditRow>(`SELECT * FROM "AuditEvent" WHERE ${where} ORDER BY "seq"`, ...params);
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/**
 * The chain hash as CONTRACT B.16 and the app's README describe it, computed here the way a
 * forger who read them would: SHA-256 of the previous event's hash followed by the event's
 * canonical JSON (its fields but the hashes, keys sorted, the time as ISO 8601).
 */
export function forgedHash(prevHash: string, row: Omit<AuditRow, 'hash' | 'prevHash'>): string {
  const fields = [
    'action',
    'actorId',
    'actorType',
    'id',
    'ip',
    'metadata',
    'occurredAt',
    'organizationId',
    'seq',
    'targetId',
    'targetType',
    'userAgent',
  ] as const;
  const canonical = JSON.stringify(
    Object.fromEntries(fields.map((key) => [key, key === 'occurredAt' ? storedDate(row.occurredAt).toISOString() : row[key]])),
  );
  return createHash('sha256').update(prevHash).update(canonical).digest('hex');
}

/** The generated app's own `npm run audit:verify` against `databaseUrl`, as a child process. */
export async function runAuditVerify(fixture: PreparedFixture, databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', '--silent', 'audit:verify'], {
    cwd: fixture.dir,
    env: childEnv({ DATABASE_URL: databaseUrl }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { code, output };
}
