import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { AuditEvent, Prisma } from '../../src/generated/prisma/client.js';
import type { TestApp } from './test-app.js';

/** A request, answered with its status, headers and JSON body (undefined for an empty body). */
export async function call(
  app: TestApp,
  path: string,
  options: { token?: string; method?: string; json?: unknown; headers?: Record<string, string> } = {},
) {
  const { method = 'GET', ...rest } = options;
  const response = await app.request(path, { method, ...rest });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The stored events matching `where`, in chain order (oldest first). */
export function auditRows(app: TestApp, where: Prisma.AuditEventWhereInput = {}): Promise<AuditEvent[]> {
  return app.context.prisma.auditEvent.findMany({ where, orderBy: { seq: 'asc' } });
}

/** The only stored event of `action` that matches `where` (fails when there is none or more than one). */
export async function onlyEvent(app: TestApp, action: string, where: Prisma.AuditEventWhereInput = {}): Promise<AuditEvent> {
  const rows = await auditRows(app, { ...where, action });
  expect(
    rows.map((row) => row.action),
    `events ${action} matching ${JSON.stringify(where)}`,
  ).toEqual([action]);
  return rows[0]!;
}

/** What an event says, as B.16's shape has it; `metadata` is matched as a subset. */
export interface ExpectedEvent {
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  organizationId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  metadata?: Record<string, unknown>;
}

export function expectEvent(row: AuditEvent, expected: ExpectedEvent): void {
  const seen = {
    actor: { type: row.actorType, id: row.actorId },
    target: row.targetType ? { type: row.targetType, id: row.targetId } : null,
    organizationId: row.organizationId,
    ...('ip' in expected ? { ip: row.ip } : {}),
    ...('userAgent' in expected ? { userAgent: row.userAgent } : {}),
  };
  const { metadata, ...fields } = expected;
  expect(seen, row.action).toEqual({ organizationId: null, ...fields });
  expect(JSON.parse(row.metadata), row.action).toMatchObject(metadata ?? {});
}

/** The headers a test client sends so its events can be told apart: a user agent of its own and, behind a proxy, an address. */
export function clientHeaders(userAgent: string, forwardedFor?: string): Record<string, string> {
  return { 'user-agent': userAgent, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) };
}

/**
 * Every secret a test sent or received: passwords, tokens, refresh tokens, codes, keys. Each is
 * looked for in every column of every stored event, and so is its SHA-256 (the form the app stores
 * it in elsewhere): an event must hold neither.
 */
export class Secrets {
  private readonly values = new Set<string>();

  add(...values: (string | null | undefined)[]): void {
    for (const value of values) if (value) this.values.add(value);
  }

  /** Takes every secret-looking string of an answer's body: tokens, keys, codes, secrets, links that carry a token. */
  addFrom(body: unknown): void {
    if (Array.isArray(body)) {
      for (const item of body) this.addFrom(item);
      return;
    }
    if (!body || typeof body !== 'object') return;
    for (const [key, value] of Object.entries(body)) {
      // An error's code and the token type name no secret.
      if (key === 'error' || key === 'tokenType') continue;
      if (typeof value === 'string' && /token|secret|^key$|code|password|url$/i.test(key)) {
        this.add(value);
        // A link's last part is the token it carries (an invite link). An otpauth URL ends in
        // `period=30` instead: so short a part is no token, and would match any time of day.
        const last = value.split(/[/?#=]/).at(-1);
        if (/url$/i.test(key) && last && last.length >= 16) this.add(last);
      } else if (/codes$/i.test(key) && Array.isArray(value)) {
        this.add(...value.map(String));
      } else if (typeof value === 'object') {
        this.addFrom(value);
      }
    }
  }

  get size(): number {
    return this.values.size;
  }

  /** Fails naming the secret and the event that holds it. */
  async expectNoneIn(app: TestApp): Promise<void> {
    const rows = await app.context.prisma.auditEvent.findMany();
    expect(rows.length).toBeGreaterThan(0);
    const columns = rows.map((row) => ({
      row,
      text: Object.values(row).map((value) => (value instanceof Date ? value.toISOString() : String(value))),
    }));
    for (const secret of this.values) {
      const forms = [secret, createHash('sha256').update(secret).digest('hex')];
      // A short code (six digits) is looked for as a whole word, so that a hash that happens to contain its digits is no match.
      const matches = (text: string, form: string) =>
        form.length >= 16
          ? text.includes(form)
          : new RegExp(`(^|[^0-9A-Za-z])${form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^0-9A-Za-z]|$)`).test(text);
      for (const { row, text } of columns) {
        for (const form of forms) {
          expect(
            text.some((value) => matches(value, form)),
            `event ${row.action} #${row.seq} holds a secret (${secret.slice(0, 4)}…)`,
          ).toBe(false);
        }
      }
    }
  }
}

/** `npm run audit:verify` against the app's database, as an operator runs it: its exit code and output. */
export function runAuditVerify(app: TestApp): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'audit:verify'],
      { env: { ...process.env, DATABASE_URL: app.context.config.DATABASE_URL }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** Waits until `check` holds (polling), for what happens outside the request (a webhook delivery); fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await check();
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`Still waiting, after ${ms} ms, for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
