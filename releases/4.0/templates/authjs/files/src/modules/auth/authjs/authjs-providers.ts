import type { ExpressAuthConfig } from '@auth/express';
import type { EmailConfig } from '@auth/express/providers/email';
import type { AppContext } from '../../../context.js';
import { sendMail } from '../../../mail/outgoing-mail.js';
import { emailAddress } from '../email-address.js';

const LINK_MINUTES = 15;

/**
 * Auth.js's email sign-in, mailed through the app's own mailer (SMTP_*, MAIL_FROM, the
 * per-address limit, and the console in development without SMTP). The link Auth.js builds points
 * at API_URL (see authjs.routes.ts) and works once, within 15 minutes. Only one plain address is
 * accepted, as everywhere in the app.
 */
function emailSignIn(ctx: AppContext): EmailConfig {
  return {
    id: 'email',
    type: 'email',
    name: 'Email',
    maxAge: LINK_MINUTES * 60,
    normalizeIdentifier(identifier) {
      const parsed = emailAddress.safeParse(identifier);
      if (!parsed.success) throw new Error('not one plain email address');
      return parsed.data;
    },
    async sendVerificationRequest({ identifier, url }) {
      await sendMail(ctx, 'sign-in-link', {
        to: identifier,
        subject: 'Your sign-in link',
        text: `To sign in, open this link within ${LINK_MINUTES} minutes:\n\n${url}\n\nThe link works once. If you did not ask for it, ignore this mail.\n`,
      });
    },
  };
}

/**
 * The ways to sign in with Auth.js. Add its OAuth providers here, for example
 * `GitHub({ clientId, clientSecret })` from '@auth/express/providers/github', with the callback URL
 * `{API_URL}/api/auth/authjs/callback/github`. Auth.js never reports a provider's address as
 * verified, so such users get new accounts and never link to existing ones by email.
 */
export function authjsProviders(ctx: AppContext): ExpressAuthConfig['providers'] {
  return [emailSignIn(ctx)];
}
