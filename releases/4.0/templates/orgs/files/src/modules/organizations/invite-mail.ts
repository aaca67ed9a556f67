import { quoteUserText } from '../../mail/mail-text.js';
import type { MailMessage } from '../../mail/mailer.js';
import type { Role } from './roles.js';

export interface InviteMailInput {
  to: string;
  organizationName: string;
  /** The inviter's name, or their address when they have none. */
  inviterName: string;
  role: Role;
  inviteUrl: string;
  expiryDays: number;
}

/**
 * The invitation. The link stands on a line of its own, so every mail client makes it clickable.
 * Names are the inviter's own words, so they are quoted and cannot carry a link of their own.
 */
export function inviteMail(input: InviteMailInput): MailMessage {
  const article = input.role === 'admin' ? 'an admin' : 'a member';
  const organization = quoteUserText(input.organizationName, 'an organization');
  return {
    to: input.to,
    subject: `You are invited to join ${organization}`,
    text:
      `${quoteUserText(input.inviterName, 'Someone')} invited you to join ${organization} as ${article}.\n\n` +
      `To accept, open this link within ${input.expiryDays} ${input.expiryDays === 1 ? 'day' : 'days'} and sign in with this email address:\n\n` +
      `${input.inviteUrl}\n\n` +
      `If you did not expect this invitation, ignore this mail.\n`,
  };
}
