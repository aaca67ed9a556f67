/**
 * A few thousand malformed requests across every route of the full fixture (CONTRACT B.11: the
 * process survives any request, and a client mistake is never a 5xx). Seeded: a failure names the
 * seed and the request, and GATEKIT_FUZZ_SEED=<seed> replays the same sequence.
 */
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/accounts.js';
import { call } from '../helpers/app-process.js';
import { copyOfDevDatabase, sharedFixture, type PreparedFixture } from '../helpers/fixtures.js';
import { createFuzzer, sendFuzzRequest as send, type Route } from '../helpers/fuzz-requests.js';
import { expectCleanLogs, useRunningApp } from '../helpers/running-app.js';

const REQUESTS = 3000;
const RAW_REQUESTS = 100;
const CONCURRENCY = 6;
const SEED = Number(process.env.GATEKIT_FUZZ_SEED ?? 20261121);

let fixture: PreparedFixture;
beforeAll(async () => {
  fixture = await sharedFixture('full');
});
const running = useRunningApp({ fixture: () => fixture, databaseUrl: () => copyOfDevDatabase(fixture, 'fuzz') });

function sendRaw(baseUrl: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** Every error answer is { error: { code, message, details? } } and nothing else. */
function expectErrorShape(text: string, context: string): void {
  const body = JSON.parse(text) as { error: { code: string; message: string; details?: unknown } };
  expect(Object.keys(body), context).toEqual(['error']);
  expect(body.error.code, context).toMatch(/^[A-Z][A-Z_]+$/);
  expect(typeof body.error.message, context).toBe('string');
  expect(Object.keys(body.error).every((key) => ['code', 'message', 'details'].includes(key)), context).toBe(true);
}

describe(`fuzzing every route of the full fixture (seed ${SEED})`, () => {
  it(
    `${REQUESTS} malformed requests and ${RAW_REQUESTS} unparsable ones: no 5xx, the error shape everywhere, the process alive`,
    async () => {
      const url = running.app.url;
      const document = (await call(url, '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
      const routes: Route[] = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })));
      expect(routes.length).toBeGreaterThan(30);

      // Real ids and a valid token let requests reach validation and the services behind the guard.
      let account = await register(running, { password: 'correct horse battery staple', verified: true });
      const org = await call(url, '/api/organizations', { token: account.token, json: { name: 'Fuzz Co' } });
      const realIds = [org.body.organization.id as string, account.userId];
      const fuzzer = createFuzzer(SEED);
      const statuses = new Map<number, number>();
      let sent = 0;

      async function worker(): Promise<void> {
        while (sent < REQUESTS) {
          sent += 1;
          if (sent % 250 === 0) account = await register(running, { password: 'correct horse battery staple', verified: true });
          const request = fuzzer.next(routes, { valid: () => account.token }, realIds);
          const context = `seed ${SEED}: ${request.description}`;
          const answer = await send(url, request).catch((error: Error) => {
            throw new Error(`${context}: ${error.message}`);
          });
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.status, context).toBeLessThan(500);
          if (answer.status >= 400 && request.method !== 'HEAD') {
            expect(answer.contentType, context).toMatch(/^application\/json/);
            expectErrorShape(answer.body, context);
          }
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      for (let i = 0; i < RAW_REQUESTS; i++) {
        const text = fuzzer.rawRequest();
        const answer = await sendRaw(url, text);
        const context = `seed ${SEED}: raw ${JSON.stringify(text.slice(0, 60))}`;
        const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
        const status = Number(head.split(' ')[1]);
        expect(status, context).toBeGreaterThanOrEqual(400);
        expect(status, context).toBeLessThan(500);
        expectErrorShape(body, context);
      }

      // Every kind of answer showed up, so the requests reached the routes, not only the parsers.
      for (const status of [200, 400, 401, 404, 413, 415]) expect(statuses.get(status) ?? 0, `status ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
      expect((await call(url, '/healthz')).status).toBe(200);
      expect(running.app.child.exitCode).toBeNull();
      const output = running.app.output();
      expect(output).not.toContain('"unhandled error"');
      expectCleanLogs(output, [account.token]);
    },
    300_000,
  );
});
