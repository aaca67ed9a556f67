import { z } from 'zod';
import { displayName } from '../display-name.js';
import { emailAddress } from '../email-address.js';
import { enteredPassword, newPassword } from './password-policy.js';

const token = z.string({ error: 'token is required' }).trim().min(1, 'token is required').max(512);

export const registerBody = z.object({
  email: emailAddress,
  password: newPassword,
  name: displayName.transform((value) => value || null).nullish(),
});

export const loginBody = z.object({ email: emailAddress, password: enteredPassword });

export const changePasswordBody = z.object({ currentPassword: enteredPassword, newPassword });

export const forgotPasswordBody = z.object({ email: emailAddress });

export const resetPasswordBody = z.object({ token, password: newPassword });

export const verifyEmailBody = z.object({ token });
