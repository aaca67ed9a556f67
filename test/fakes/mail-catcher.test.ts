import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { linkFrom, smtpEnv, startMailCatcher, type MailCatcher } from '../helpers/mail-catcher.js';

let catcher: MailCatcher;

function transport(auth?: { user: string; pass: string }) {
  const env = smtpEnv(catcher);
  return nodemailer.createTransport({
    host: env.SMTP_HOST,
    port: Number(env.SMTP_PORT),
    secure: env.SMTP_SECURE === 'true',
    auth,
  });
}

beforeAll(async () => {
  catcher = await startMailCatcher();
});

afterAll(async () => {
  await catcher.close();
});

beforeEach(() => {
  catcher.setFailing(false);
  catcher.clear();
});

describe('mail catcher', () => {
  it('listens on 127.0.0.1 and describes itself as SMTP environment', () => {
    expect(catcher.host).toBe('127.0.0.1');
    expect(catcher.port).toBeGreaterThan(0);
    expect(smtpEnv(catcher)).toEqual({
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(catcher.port),
      SMTP_SECURE: 'false',
      MAIL_FROM: 'Gatekit Test <test@gatekit.local>',
    });
  });

  it('receives and parses a mail sent with nodemailer over SMTP', async () => {
    const info = await transport().sendMail({
      from: smtpEnv(catcher).MAIL_FROM,
      to: 'Ada <ada@example.com>',
      bcc: 'audit@example.com',
      subject: 'Welcome to Gatekit',
      text: 'Hello Ada,\n\nWelcome.',
      html: '<p>Hello Ada,</p><p>Welcome.</p>',
    });
    expect(info.accepted).toEqual(['ada@example.com', 'audit@example.com']);
    // Stored before the server answered 250, so no waiting is needed.
    expect(catcher.messages).toHaveLength(1);
    const [mail] = catcher.messages;
    expect(mail).toEqual({
      to: ['ada@example.com', 'audit@example.com'],
      from: '"Gatekit Test" <test@gatekit.local>',
      subject: 'Welcome to Gatekit',
      text: 'Hello Ada,\n\nWelcome.',
      html: '<p>Hello Ada,</p><p>Welcome.</p>',
    });
  });

  it('accepts AUTH with any credentials over plain SMTP', async () => {
    await transport({ user: 'someone', pass: 'anything' }).sendMail({
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 'with auth',
      text: 'x',
    });
    expect(catcher.messages.map((mail) => mail.subject)).toEqual(['with auth']);
    expect(catcher.messages[0]!.html).toBe('');
  });

  it('finds the link that stands alone on its own line', async () => {
    await transport().sendMail({
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 'Verify your email',
      text: [
        'Open http://localhost:3000/verify?token=inline in a browser, or use this link:',
        '',
        '  http://localhost:3000/verify?token=abc123  ',
        '',
        'Unrelated: http://localhost:3000/other',
      ].join('\n'),
    });
    const mail = await catcher.waitForMail('b@example.com');
    expect(catcher.linkFrom(mail, 'http://localhost:3000/verify?token=')).toBe('http://localhost:3000/verify?token=abc123');
    // A URL inside a sentence does not count.
    expect(() => linkFrom(mail, 'http://localhost:3000/other')).toThrow(
      /No line of the text part of the mail to b@example.com subject "Verify your email" is a link starting with http:\/\/localhost:3000\/other/,
    );
    expect(() => linkFrom(mail, 'http://localhost:3000/reset')).toThrow(/Text part:\nOpen http:\/\/localhost:3000\/verify\?token=inline/);
  });

  it('waits for a mail that arrives later, honouring since and subject', async () => {
    const smtp = transport();
    await smtp.sendMail({ from: 'a@example.com', to: 'c@example.com', subject: 'Old one', text: 'old' });
    const since = catcher.messages.length;
    const waiting = catcher.waitForMail('C@Example.com', { since, subject: /reset/i, timeoutMs: 3000 });
    setTimeout(() => {
      void (async () => {
        await smtp.sendMail({ from: 'a@example.com', to: 'c@example.com', subject: 'Something else', text: '1' });
        await smtp.sendMail({ from: 'a@example.com', to: 'c@example.com', subject: 'Reset your password', text: '2' });
      })();
    }, 150);
    const mail = await waiting;
    expect(mail.subject).toBe('Reset your password');
    // A single-part message keeps the line break that ends its body.
    expect(mail.text).toBe('2\n');
  });

  it('rejects on timeout and lists what it received', async () => {
    await transport().sendMail({ from: 'a@example.com', to: 'x@example.com', subject: 'For x', text: 'x' });
    await expect(catcher.waitForMail('y@example.com', { timeoutMs: 200 })).rejects.toThrow(
      /No mail to y@example.com within 200 ms\. Received 1 message\(s\) since index 0:\n {2}- to x@example.com subject "For x"/,
    );
    await expect(catcher.waitForMail('x@example.com', { timeoutMs: 100, since: 1 })).rejects.toThrow(
      /Received 0 message\(s\) since index 1\./,
    );
  });

  it('refuses every message with 550 while failing, and recovers', async () => {
    catcher.setFailing(true);
    const smtp = transport();
    const failure = await smtp
      .sendMail({ from: 'a@example.com', to: 'd@example.com', subject: 'Lost', text: 'lost' })
      .then(
        () => null,
        (error: unknown) => error as Error & { responseCode?: number },
      );
    expect(failure).not.toBeNull();
    expect(failure!.responseCode).toBe(550);
    expect(catcher.messages).toHaveLength(0);

    catcher.setFailing(false);
    await smtp.sendMail({ from: 'a@example.com', to: 'd@example.com', subject: 'Delivered', text: 'ok' });
    expect(catcher.messages.map((mail) => mail.subject)).toEqual(['Delivered']);
  });

  it('clear() forgets received messages', async () => {
    await transport().sendMail({ from: 'a@example.com', to: 'e@example.com', subject: 'One', text: '1' });
    expect(catcher.messages).toHaveLength(1);
    catcher.clear();
    expect(catcher.messages).toHaveLength(0);
  });
});
