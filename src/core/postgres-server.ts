import { connect, type Socket } from 'node:net';

/** The URL with its password replaced by ****, for messages. */
export function maskPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1****@');
  }
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

interface Target {
  /** host and port, or a Unix socket path (?host=/var/run/postgresql). */
  where: { host: string; port: number } | { path: string };
  user: string;
  database: string;
}

function targetOf(url: string): Target {
  // postgresql://user@/db?host=/var/run/postgresql names a socket folder and no host.
  const parsed = new URL(url.replace(/@\//, '@localhost/'));
  if (parsed.hostname === 'localhost' && /@\//.test(url)) parsed.hostname = '';
  const port = Number(parsed.port || 5432);
  const socketDir = parsed.searchParams.get('host');
  const user = decodeURIComponent(parsed.username) || 'postgres';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  if (!parsed.hostname && socketDir?.startsWith('/')) return { where: { path: `${socketDir}/.s.PGSQL.${port}` }, user, database };
  return { where: { host: parsed.hostname.replace(/^\[|\]$/g, '') || 'localhost', port }, user, database };
}

/** PostgreSQL's StartupMessage (protocol 3.0) for this user and database. */
function startupMessage(user: string, database: string): Buffer {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

/** The fields of an ErrorResponse: S (severity), C (SQLSTATE), M (message). */
function errorFields(message: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 5;
  while (at < message.length && message[at] !== 0) {
    const end = message.indexOf(0, at + 1);
    if (end < 0) break;
    fields[String.fromCharCode(message[at]!)] = message.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return fields;
}

/**
 * Whether a PostgreSQL server answers at `url` and lets this user start a session on its database:
 * undefined when it does, else what went wrong, in a sentence.
 *
 * It opens the connection and sends PostgreSQL's startup message; an authentication request means a
 * server that knows the database is there (a password is not checked: that needs the full
 * authentication exchange, which the first migration does anyway), an error response (no such
 * database or role, no pg_hba.conf entry) is reported with the server's own words.
 */
export function postgresServerProblem(url: string, timeoutMs = 4000): Promise<string | undefined> {
  let target: Target;
  try {
    target = targetOf(url);
  } catch {
    return Promise.resolve('it is not a valid URL (postgresql://user:password@host:5432/database)');
  }
  return new Promise((resolve) => {
    let socket: Socket;
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (problem: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const where = 'path' in target.where ? target.where.path : `${target.where.host}:${target.where.port}`;
    const timer = setTimeout(() => finish(`nothing answered at ${where} within ${timeoutMs / 1000}s`), timeoutMs);
    socket = 'path' in target.where ? connect(target.where.path) : connect(target.where.port, target.where.host);
    socket.on('connect', () => socket.write(startupMessage(target.user, target.database)));
    socket.on('error', (error: NodeJS.ErrnoException) => finish(`cannot connect to ${where} (${error.code ?? error.message})`));
    socket.on('close', () => finish(`${where} closed the connection without answering as PostgreSQL`));
    // After "authentication ok" (a trusted connection) the server checks the database and role,
    // so read on to ReadyForQuery or an error; a password request ends the check (see above).
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 5) {
        const kind = String.fromCharCode(received[0]!);
        const length = received.readInt32BE(1);
        if (!'REZSKNv'.includes(kind) || length < 4 || length > 1_000_000) return finish(`${where} does not answer as a PostgreSQL server`);
        if (received.length < 1 + length) return;
        const message = received.subarray(0, 1 + length);
        received = received.subarray(1 + length);
        if (kind === 'E') {
          const fields = errorFields(message);
          return finish(`the server at ${where} refused: ${fields.M ?? 'no reason given'}${fields.C ? ` (SQLSTATE ${fields.C})` : ''}`);
        }
        if (kind === 'Z' || (kind === 'R' && message.readInt32BE(5) !== 0)) return finish(undefined);
      }
    });
  });
}
