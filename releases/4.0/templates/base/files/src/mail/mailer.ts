import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; every link stands on a line of its own. */
  text: string;
  html?: string;
}

export interface Mailer {
  /** True when SMTP is configured. */
  readonly configured: boolean;
  /** Resolves when the SMTP server accepted the message; rejects when it did not. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP when SMTP_HOST is set. Without it, development prints each mail (links included) to the
 * console so you can click them; other environments only log that a mail was not sent.
 */
export function createMailer(config: Config, logger: Logger): Mailer {
  if (!config.SMTP_HOST) {
    return {
      configured: false,
      send: async (message) => {
        if (config.NODE_ENV === 'development') {
          logger.info({ mail: { to: message.to, subject: message.subject, text: message.text } }, 'mail (SMTP not configured, printed instead)');
        } else {
          logger.warn({ mail: { subject: message.subject } }, 'mail not sent: SMTP is not configured');
        }
      },
      close: () => {},
    };
  }
  // nodemailer is imported with the first mail, not at start; the pool it makes is kept.
  let transport: Promise<Transporter> | undefined;
  const smtp = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: config.SMTP_HOST,
        port: config.SMTP_PORT,
        secure: config.SMTP_SECURE,
        auth: config.SMTP_USER ? { user: config.SMTP_USER, pass: config.SMTP_PASS ?? '' } : undefined,
        // nodemailer waits 2 minutes for a connection and 10 for a silent socket by default; a mail
        // server that hangs must not hold a request longer than a few seconds.
        connectionTimeout: 5000,
        greetingTimeout: 5000,
        socketTimeout: 10_000,
      }),
    ));
  return {
    configured: true,
    send: async (message) => {
      await (await smtp()).sendMail({ from: config.MAIL_FROM, ...message });
    },
    close: () => {
      void transport?.then((opened) => opened.close());
    },
  };
}
