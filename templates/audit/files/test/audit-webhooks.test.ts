import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { BackgroundTask } from '../src/context.js';
import { deliverDueEvents, startWebhookDelivery } from '../src/modules/audit/webhook-delivery.js';
import { auditRows, call, eventually } from './helpers/audit.js';
import { olderToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// B.16 rule 7: every event is POSTed to AUDIT_WEBHOOK_URL, signed per the Standard Webhooks
// specification, from an outbox in the database. The receiver is a plain HTTP server of the test's
// own; the signature is checked with the algorithm written out here with node:crypto.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** The Standard Webhooks signature, computed independently: HMAC-SHA256 keyed with the secret's base64 part, over id.timestamp.body. */
function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to the next requests, in order (200 once they run out); 'hang' never answers. */
type Answer = number | 'hang';

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answers: Answer[];
  hanging: ServerResponse[];
  close(): Promise<void>;
}

async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? 200;
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks/audit`,
    port: bound,
    received,
    answers,
    hanging,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const webhookEnv = (receiver: Receiver) => ({ AUDIT_WEBHOOK_URL: receiver.url, AUDIT_WEBHOOK_SECRET: SECRET });

/** One event through a route: a user (made straight in the database, with no event of its own) logs out. Returns the event's id. */
async function logoutEvent(app: TestApp): Promise<string> {
  const user = await app.context.prisma.user.create({ data: { email: uniqueEmail('webhook') } });
  const token = await olderToken(app, user, 0);
  expect((await call(app, '/api/auth/logout', { method: 'POST', token })).status).toBe(204);
  return (await auditRows(app, { action: 'auth.signed_out', targetId: user.id }))[0]!.id;
}

const requestsFor = (receiver: Receiver, eventId: string) =>
  receiver.received.filter((request) => request.headers['webhook-id'] === eventId);

/**
 * Stands for time passing: the failed delivery's next attempt, scheduled minutes ahead by the
 * backoff, is moved into the past in the database instead of waiting for it.
 */
async function timePasses(app: TestApp, eventId: string): Promise<void> {
  await app.context.prisma.auditDelivery.update({ where: { eventId }, data: { nextAttemptAt: new Date(Date.now() - 1000) } });
}

describe('delivery beside requests', () => {
  let receiver: Receiver;
  let app: TestApp;
  let delivery: BackgroundTask;
  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startTestApp(webhookEnv(receiver));
    // What the server starts beside requests once it listens (the test app starts none by itself).
    delivery = startWebhookDelivery(app.context);
  });
  afterAll(async () => {
    for (const response of receiver.hanging) response.writeHead(200).end();
    await delivery.stop();
    await app.close();
    await receiver.close();
  });

  it('POSTs each event with webhook-id, webhook-timestamp and a signature that verifies with the standard algorithm', async () => {
    const eventId = await logoutEvent(app);
    const [request] = await eventually(
      async () => requestsFor(receiver, eventId).length === 1 && requestsFor(receiver, eventId),
      'the event at the receiver',
    );
    const row = (await auditRows(app, { id: eventId }))[0]!;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/audit');
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    const timestamp = String(request!.headers['webhook-timestamp']);
    expect(timestamp).toMatch(/^\d+$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(request!.headers['webhook-signature']).toBe(expectedSignature(SECRET, eventId, timestamp, request!.body));
    // Another secret's signature is not it: the check above is not vacuous.
    expect(request!.headers['webhook-signature']).not.toBe(
      expectedSignature(`whsec_${randomBytes(32).toString('base64')}`, eventId, timestamp, request!.body),
    );
    expect(JSON.parse(request!.body)).toEqual({
      type: 'auth.signed_out',
      timestamp: row.occurredAt.toISOString(),
      data: {
        id: eventId,
        occurredAt: row.occurredAt.toISOString(),
        action: 'auth.signed_out',
        actor: { type: 'user', id: row.actorId },
        target: { type: 'user', id: row.targetId },
        organizationId: null,
        ip: '127.0.0.1',
        userAgent: row.userAgent,
        metadata: JSON.parse(row.metadata),
        chain: { seq: row.seq, hash: row.hash },
      },
    });
    // Accepted: the event leaves the outbox.
    await eventually(async () => (await app.context.prisma.auditDelivery.count({ where: { eventId } })) === 0, 'the outbox to empty');
  });

  it('a receiver that fails three times still gets the event, with the same webhook-id each time', async () => {
    receiver.answers.push(500, 503, 502);
    const eventId = await logoutEvent(app);
    for (let failures = 1; failures <= 3; failures++) {
      const waiting = await eventually(async () => {
        const row = await app.context.prisma.auditDelivery.findUnique({ where: { eventId } });
        return row?.attempts === failures && row.lockedUntil === null ? row : undefined;
      }, `failed attempt ${failures}`);
      expect(waiting.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
      expect(waiting.lastError).toContain('answered 5');
      await timePasses(app, eventId);
    }
    await eventually(async () => requestsFor(receiver, eventId).length === 4, 'the fourth attempt');
    await eventually(async () => (await app.context.prisma.auditDelivery.count({ where: { eventId } })) === 0, 'the outbox to empty');
    const attempts = requestsFor(receiver, eventId);
    expect(attempts.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId, eventId, eventId]);
    for (const request of attempts) {
      expect(request.headers['webhook-signature']).toBe(
        expectedSignature(SECRET, eventId, String(request.headers['webhook-timestamp']), request.body),
      );
    }
    expect(new Set(attempts.map((request) => request.body)).size).toBe(1);
  }, 40_000);

  it('a receiver that hangs does not hold up requests: sign-outs answer while it keeps a delivery open', async () => {
    receiver.answers.push('hang');
    const held = await logoutEvent(app);
    await eventually(
      async () => receiver.hanging.length === 1 && requestsFor(receiver, held).length === 1,
      'the receiver to hold a delivery',
    );
    // Requests that record events complete while the receiver still holds the delivery.
    for (let i = 0; i < 3; i++) await logoutEvent(app);
    expect(receiver.hanging).toHaveLength(1);
    receiver.hanging.shift()!.writeHead(200).end();
    await eventually(
      async () => (await app.context.prisma.auditDelivery.count()) === 0,
      'every event delivered after the receiver answers',
      20_000,
    );
  }, 40_000);
});

describe('the outbox and its retries', () => {
  let receiver: Receiver;
  let app: TestApp;
  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startTestApp(webhookEnv(receiver));
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it('puts each event in the outbox in the transaction that records it, due at once', async () => {
    const eventId = await logoutEvent(app);
    const waiting = await app.context.prisma.auditDelivery.findUniqueOrThrow({ where: { eventId } });
    expect(waiting).toMatchObject({ attempts: 0, lockedUntil: null, abandonedAt: null });
    expect(waiting.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    await deliverDueEvents(app.context, new Webhook(SECRET));
    expect(requestsFor(receiver, eventId)).toHaveLength(1);
    expect(await app.context.prisma.auditDelivery.count({ where: { eventId } })).toBe(0);
  });

  it('retries with backoff, the first three within ten minutes, for more than 24 hours, then gives up', async () => {
    const eventId = await logoutEvent(app);
    const webhook = new Webhook(SECRET);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 20; attempt++) {
      const row = await app.context.prisma.auditDelivery.findUniqueOrThrow({ where: { eventId } });
      if (row.abandonedAt) break;
      receiver.answers.push(500);
      const failedAt = Date.now();
      // The run sees the clock at the attempt's due time (time passing, without waiting for it).
      await deliverDueEvents(app.context, webhook, new Date(Math.max(row.nextAttemptAt.getTime(), Date.now())));
      const after = await app.context.prisma.auditDelivery.findUniqueOrThrow({ where: { eventId } });
      expect(after.attempts).toBe(attempt);
      if (!after.abandonedAt) delays.push(after.nextAttemptAt.getTime() - failedAt);
    }
    const abandoned = await app.context.prisma.auditDelivery.findUniqueOrThrow({ where: { eventId } });
    expect(abandoned.abandonedAt).not.toBeNull();
    expect(requestsFor(receiver, eventId)).toHaveLength(delays.length + 1);
    expect(delays.slice(0, 3).reduce((sum, delay) => sum + delay, 0)).toBeLessThanOrEqual(10 * 60_000);
    expect(delays.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThanOrEqual(24 * 3_600_000);
    for (let i = 1; i < delays.length; i++) expect(delays[i]!).toBeGreaterThanOrEqual(delays[i - 1]! - 1000);
    // Abandoned: no later run sends it again.
    await deliverDueEvents(app.context, webhook, new Date(Date.now() + 30 * 86_400_000));
    expect(requestsFor(receiver, eventId)).toHaveLength(delays.length + 1);
  });

  it('a receiver that is down across a restart gets every event afterwards', async () => {
    const port = receiver.port;
    await receiver.close();
    const first = startWebhookDelivery(app.context);
    const events = [await logoutEvent(app), await logoutEvent(app), await logoutEvent(app)];
    await eventually(
      async () =>
        (await app.context.prisma.auditDelivery.count({ where: { eventId: { in: events }, attempts: { gte: 1 }, lockedUntil: null } })) ===
        3,
      'the failed attempts',
    );
    // The instance stops (a restart); the receiver comes back; a new instance on the same database takes over.
    await first.stop();
    receiver = await startReceiver(port);
    const restarted = await createApp(app.context.config, { mailer: app.context.mailer });
    const second = startWebhookDelivery(restarted.context);
    try {
      for (const eventId of events) await timePasses(app, eventId);
      await eventually(async () => events.every((eventId) => requestsFor(receiver, eventId).length === 1), 'every event at the receiver');
      await eventually(
        async () => (await app.context.prisma.auditDelivery.count({ where: { eventId: { in: events } } })) === 0,
        'the outbox to empty',
      );
    } finally {
      await second.stop();
      await restarted.close();
    }
  }, 40_000);
});

describe('configuration', () => {
  const base = { DATABASE_URL: 'file:./unused.db', JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing' };

  it('refuses a secret that is not whsec_ and base64, naming the variable', () => {
    for (const secret of ['plain-secret', 'whsec_short', 'whsec_not base64 at all!!!!!!!!!!!!!!!!!!!!!!!!']) {
      expect(() => loadConfig({ ...base, AUDIT_WEBHOOK_URL: 'https://siem.example.com/in', AUDIT_WEBHOOK_SECRET: secret })).toThrow(
        /AUDIT_WEBHOOK_SECRET/,
      );
    }
  });

  it('a URL without its secret, or a secret without a URL, stops the start naming the missing one: events would silently go nowhere', () => {
    expect(() => loadConfig({ ...base, AUDIT_WEBHOOK_URL: 'https://siem.example.com/in' })).toThrow(/AUDIT_WEBHOOK_SECRET is required with AUDIT_WEBHOOK_URL/);
    expect(() => loadConfig({ ...base, AUDIT_WEBHOOK_SECRET: SECRET })).toThrow(/AUDIT_WEBHOOK_URL is required with AUDIT_WEBHOOK_SECRET/);
  });

  /** Starts the real server (src/server.ts) in production with `env`; resolves when it listens (then stops it) or exits. */
  async function startServer(
    app: TestApp,
    env: Record<string, string>,
  ): Promise<{ listened: boolean; code: number | null; output: string }> {
    const free = await startReceiver();
    await free.close();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        JWT_SECRET: randomBytes(32).toString('hex'),
        DATABASE_URL: app.context.config.DATABASE_URL,
        APP_URL: 'https://app.example.com',
        API_URL: 'https://api.example.com',
        HOST: '127.0.0.1',
        PORT: String(free.port),
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let listened = false;
    return new Promise((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (!listened && output.includes('server listening')) {
          listened = true;
          child.kill('SIGTERM');
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => resolve({ listened, code, output }));
    });
  }

  it('an http: AUDIT_WEBHOOK_URL in production stops the start with exit 1, naming the variable; https starts', async () => {
    const app = await startTestApp();
    try {
      const refused = await startServer(app, { AUDIT_WEBHOOK_URL: 'http://siem.example.com/in', AUDIT_WEBHOOK_SECRET: SECRET });
      expect(refused.listened, refused.output).toBe(false);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('AUDIT_WEBHOOK_URL');
      expect(refused.output).not.toContain(SECRET);
      const started = await startServer(app, { AUDIT_WEBHOOK_URL: 'https://siem.example.com/in', AUDIT_WEBHOOK_SECRET: SECRET });
      expect(started.listened, started.output).toBe(true);
    } finally {
      await app.close();
    }
  }, 60_000);
});
