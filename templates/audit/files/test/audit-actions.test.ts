import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, userRef } from '../src/modules/auth/events.js';
import { AUDIT_ACTIONS } from '../src/modules/audit/audit-actions.js';
import { auditRows } from './helpers/audit.js';
import { startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// The actions an app records are those its modules declare (each manifest's `events`), so a module
// or a pack adds its own in one place. Recording anything else, or metadata that looks like a
// secret, is a programming error: it fails loudly, and the change it belonged to does not happen.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** Records `event` in the transaction of a change (a new user); answers the error, if any. */
async function inAChange(event: Parameters<typeof recordEvent>[2]): Promise<{ error: unknown; email: string }> {
  const email = uniqueEmail('declared');
  try {
    await app.context.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { email } });
      await recordEvent(app.context, tx, { target: userRef(user.id), ...event });
    });
    return { error: undefined, email };
  } catch (error) {
    return { error, email };
  }
}

describe('declared actions', () => {
  it('declares every action the base records, each a lowercase name.verb the filters accept, once', () => {
    for (const action of [
      'auth.registered',
      'auth.signed_in',
      'auth.sign_in_failed',
      'auth.signed_out',
      'session.ended',
      'session.refresh_reuse_detected',
      'account.taken_over',
      'account.deleted',
      'account.exported',
    ]) {
      expect(AUDIT_ACTIONS).toContain(action);
    }
    for (const action of AUDIT_ACTIONS) expect(action).toMatch(/^[a-z_]+\.[a-z_]+$/);
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
  });

  it('fails loudly on an action no module declares, and the change it belonged to rolls back', async () => {
    const before = await app.context.prisma.auditEvent.count();
    const { error, email } = await inAChange({ action: 'account.renamed_by_magic' });
    expect(String(error)).toMatch(/account\.renamed_by_magic is declared by no module/);
    expect(await app.context.prisma.user.count({ where: { email } })).toBe(0);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
  });

  it('records a declared action in the same transaction as its change', async () => {
    const { error, email } = await inAChange({
      action: 'account.exported',
      metadata: { method: 'password', reason: 'invalid_credentials', sessionId: 'abc' },
    });
    expect(error).toBeUndefined();
    const user = await app.context.prisma.user.findUniqueOrThrow({ where: { email } });
    expect((await auditRows(app, { targetId: user.id })).map((row) => row.action)).toEqual(['account.exported']);
  });
});

describe('metadata', () => {
  it.each([
    'password',
    'newPassword',
    'token',
    'refreshToken',
    'mfaToken',
    'secret',
    'clientSecret',
    'code',
    'recoveryCode',
    'recoveryCodes',
    'tokenHash',
    'keyHash',
    'key',
    'apiKey',
    'totpCode',
    'otp',
  ])('refuses the secret-like key %s, and the change rolls back', async (key) => {
    const before = await app.context.prisma.auditEvent.count();
    const { error, email } = await inAChange({ action: 'account.exported', metadata: { [key]: 'value' } });
    expect(String(error)).toMatch(new RegExp(`carries '${key}' in its metadata`));
    expect(String(error)).not.toContain('value');
    expect(await app.context.prisma.user.count({ where: { email } })).toBe(0);
    expect(await app.context.prisma.auditEvent.count()).toBe(before);
  });
});
