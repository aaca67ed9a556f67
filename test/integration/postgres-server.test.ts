import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { maskPassword, postgresServerProblem } from '../../src/core/postgres-server.js';

// The check the generator runs before writing a PostgreSQL project, against the machine's real
// server (127.0.0.1:5432, trust for postgres) and small TCP servers that are not PostgreSQL.
const servers: Server[] = [];
function tcpServer(onConnection: (socket: import('node:net').Socket) => void): Promise<number> {
  const server = createServer(onConnection);
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}
afterAll(() => servers.forEach((server) => server.close()));

describe('maskPassword', () => {
  it('replaces the password and keeps the rest', () => {
    expect(maskPassword('postgresql://app:s3cret@db.internal:5432/app?sslmode=require')).toBe('postgresql://app:****@db.internal:5432/app?sslmode=require');
    expect(maskPassword('postgresql://app@localhost/app')).toBe('postgresql://app@localhost/app');
    expect(maskPassword('postgres://u:p%40ss@h/d')).toBe('postgres://u:****@h/d');
  });
});

describe('postgresServerProblem', () => {
  it('a server that lets the user into the database: no problem (TCP and Unix socket)', async () => {
    expect(await postgresServerProblem('postgresql://postgres@127.0.0.1:5432/test')).toBeUndefined();
    expect(await postgresServerProblem('postgresql://postgres@/test?host=/var/run/postgresql')).toBeUndefined();
  });

  it("the server's own refusal: no such database, no such role", async () => {
    expect(await postgresServerProblem('postgresql://postgres@127.0.0.1:5432/gatekit_not_there')).toBe(
      'the server at 127.0.0.1:5432 refused: database "gatekit_not_there" does not exist (SQLSTATE 3D000)',
    );
    expect(await postgresServerProblem('postgresql://gatekit_nobody@127.0.0.1:5432/test')).toMatch(/refused: role "gatekit_nobody" does not exist \(SQLSTATE 28000\)/);
  });

  it('nothing listening, silence, and something that is not PostgreSQL', async () => {
    expect(await postgresServerProblem('postgresql://app@127.0.0.1:1/app')).toBe('cannot connect to 127.0.0.1:1 (ECONNREFUSED)');
    const silent = await tcpServer(() => undefined);
    expect(await postgresServerProblem(`postgresql://app@127.0.0.1:${silent}/app`, 300)).toBe(`nothing answered at 127.0.0.1:${silent} within 0.3s`);
    const http = await tcpServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    expect(await postgresServerProblem(`postgresql://app@127.0.0.1:${http}/app`)).toBe(`127.0.0.1:${http} does not answer as a PostgreSQL server`);
    const closes = await tcpServer((socket) => socket.destroy());
    expect(await postgresServerProblem(`postgresql://app@127.0.0.1:${closes}/app`)).toMatch(/closed the connection without answering as PostgreSQL|ECONNRESET/);
  });

  it('a URL that does not parse', async () => {
    expect(await postgresServerProblem('postgresql://app@127.0.0.1:notaport/app')).toBe('it is not a valid URL (postgresql://user:password@host:5432/database)');
  });
});
