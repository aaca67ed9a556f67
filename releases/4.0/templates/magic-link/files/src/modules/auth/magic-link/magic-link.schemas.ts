import { z } from 'zod';
import { emailAddress } from '../email-address.js';

export const sendMagicLinkBody = z.object({ email: emailAddress });

export const verifyMagicLinkBody = z.object({
  token: z.string({ error: 'token is required' }).trim().min(1, 'token is required').max(512),
});
