import type { AppContext } from '../context.js';
import type { MailMessage } from './mailer.js';

/** The kinds of mail one address can receive; each has its own per-address budget. */
export type MailKind = 'sign-in-link' | 'password-reset' | 'email-verification' | 'invite' | 'security-alert';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * At most MAIL_PER_ADDRESS_MAX mails of one kind to one address per 15 minutes, whoever asks and
 * from wherever: nobody can flood a mailbox from the app's address. 0 turns the limit off.
 */
async function withinAddressLimit(ctx: AppContext, kind: MailKind, to: string): Promise<boolean> {
  const max = ctx.config.MAIL_PER_ADDRESS_MAX;
  if (max === 0) return true;
  const { count } = await ctx.counters.increment(`mail:${kind}:${to.toLowerCase()}`, WINDOW_MS);
  return count <= max;
}

/**
 * Sends a mail unless its address is over the limit for this kind. Resolves true when the SMTP
 * server accepted it; false when it was over the limit, not sent (no SMTP) or refused (logged).
 */
export async function sendMail(ctx: AppContext, kind: MailKind, message: MailMessage): Promise<boolean> {
  if (!(await withinAddressLimit(ctx, kind, message.to))) {
    ctx.logger.warn({ mail: { kind } }, 'mail not sent: too many mails of this kind to this address');
    return false;
  }
  try {
    await ctx.mailer.send(message);
    return ctx.mailer.configured;
  } catch (error) {
    ctx.logger.error({ err: error, mail: { kind, subject: message.subject } }, 'sending mail failed');
    return false;
  }
}
