import type { MailMessage } from '../../mail/mailer.js';
import type { Role } from './roles.js';

export interface InviteMailInput {
  to: string;
  organizationName: string;
  inviterName: string;
  role: Role;
  inviteUrl: string;
  expiryDays: number;
}

/** The invitation. The link stands on a line of its own, so every mail client makes it clickable. */
export function inviteMail(input: InviteMailInput): MailMessage {
  const article = input.role === 'admin' ? 'an admin' : 'a member';
  return {
    to: input.to,
    subject: `You are invited to join ${input.organizationName}`,
    text:
      `${input.inviterName} invited you to join ${input.organizationName} as ${article}.\n\n` +
      `To accept, open this link within ${input.expiryDays} ${input.expiryDays === 1 ? 'day' : 'days'} and sign in with this email address:\n\n` +
      `${input.inviteUrl}\n\n` +
      `If you did not expect this invitation, ignore this mail.\n`,
  };
}
