/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, random port, plain text, AUTH optional
 * and any credentials accepted). Every accepted message is parsed with mailparser and kept in
 * `messages`, in the order the server accepted them, before the client gets its 250 reply.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  /** Envelope recipients (RCPT TO), so Bcc recipients are included. */
  to: string[];
  /** The From header as written, e.g. `"Gatekit Test" <test@gatekit.local>`. */
  from: string;
  subject: string;
  /**
   * The text/plain part as mailparser returns it; '' when the message has none. A single-part
   * text message keeps the line break that ends its body ("Hi" arrives as "Hi\n").
   */
  text: string;
  /** The text/html part; '' when the message has none. */
  html: string;
}

export interface WaitForMailOptions {
  /** Default 5000. */
  timeoutMs?: number;
  /** Only consider messages at this index of `messages` or later (take `messages.length` before acting). */
  since?: number;
  subject?: RegExp;
}

export interface MailCatcher {
  host: string;
  port: number;
  messages: Mail[];
  /** The first message (from `since`) delivered to `to` (case-insensitive) and matching `subject`. */
  waitForMail(to: string, options?: WaitForMailOptions): Promise<Mail>;
  /** The URL starting with `prefix` that stands alone on its own line of the text part. */
  linkFrom(mail: Mail, prefix: string): string;
  /** While on, every message is refused with 550 after DATA, and nothing is stored. */
  setFailing(on: boolean): void;
  clear(): void;
  close(): Promise<void>;
}

const POLL_MS = 20;

function describe(mail: Mail): string {
  return `to ${mail.to.join(', ') || '(nobody)'} subject ${JSON.stringify(mail.subject)}`;
}

/** The URL starting with `prefix` alone on one line (surrounding spaces allowed) of `mail.text`. */
export function linkFrom(mail: Mail, prefix: string): string {
  for (const line of mail.text.split(/\r?\n/)) {
    const candidate = line.trim();
    if (candidate.startsWith(prefix) && !/\s/.test(candidate)) return candidate;
  }
  throw new Error(
    `No line of the text part of the mail ${describe(mail)} is a link starting with ${prefix}. Text part:\n${mail.text || '(empty)'}`,
  );
}

function toMail(parsed: ParsedMail, recipients: string[]): Mail {
  return {
    to: recipients,
    from: parsed.from?.text ?? '',
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
  };
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const host = '127.0.0.1';
  const messages: Mail[] = [];
  let failing = false;

  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    logger: false,
    banner: 'Gatekit test mail catcher',
    closeTimeout: 200,
    onData(stream, session, callback) {
      if (failing) {
        stream.on('end', () => {
          const error = Object.assign(new Error('Mailbox unavailable (the test mail catcher is set to fail)'), {
            responseCode: 550,
          });
          callback(error);
        });
        stream.resume();
        return;
      }
      const recipients = session.envelope.rcptTo.map((recipient) => recipient.address);
      simpleParser(stream).then(
        (parsed) => {
          messages.push(toMail(parsed, recipients));
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors after startup (a client dropping the connection) must not crash the test run.
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;

  const catcher: MailCatcher = {
    host,
    port,
    messages,
    waitForMail(to, options = {}) {
      const { timeoutMs = 5000, since = 0, subject } = options;
      const wanted = to.toLowerCase();
      const find = () =>
        messages
          .slice(since)
          .find(
            (mail) => mail.to.some((address) => address.toLowerCase() === wanted) && (!subject || subject.test(mail.subject)),
          );
      const deadline = Date.now() + timeoutMs;
      return new Promise<Mail>((resolve, reject) => {
        const poll = () => {
          const found = find();
          if (found) return resolve(found);
          if (Date.now() >= deadline) {
            const seen = messages.slice(since);
            return reject(
              new Error(
                `No mail to ${to}${subject ? ` with a subject matching ${subject}` : ''} within ${timeoutMs} ms. ` +
                  `Received ${seen.length} message(s) since index ${since}` +
                  (seen.length ? `:\n${seen.map((mail) => `  - ${describe(mail)}`).join('\n')}` : '.'),
              ),
            );
          }
          setTimeout(poll, POLL_MS);
        };
        poll();
      });
    },
    linkFrom,
    setFailing(on) {
      failing = on;
    },
    clear() {
      messages.length = 0;
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return catcher;
}

/** Environment for an app whose mailer reads SMTP_* and MAIL_FROM. */
export function smtpEnv(catcher: Pick<MailCatcher, 'port'>): {
  SMTP_HOST: string;
  SMTP_PORT: string;
  SMTP_SECURE: string;
  MAIL_FROM: string;
} {
  return {
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(catcher.port),
    SMTP_SECURE: 'false',
    MAIL_FROM: 'Gatekit Test <test@gatekit.local>',
  };
}
