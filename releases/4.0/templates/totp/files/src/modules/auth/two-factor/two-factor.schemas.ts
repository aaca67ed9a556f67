import { z } from 'zod';

/** Six digits; spaces are ignored, as apps often show "123 456". */
const code = z
  .string({ error: 'code is required' })
  .transform((value) => value.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'code must be the 6 digits shown by the authenticator app'));

const recoveryCode = z.string({ error: 'recoveryCode must be a string' }).trim().min(1, 'recoveryCode is required').max(64);

const mfaToken = z.string({ error: 'mfaToken is required' }).trim().min(1, 'mfaToken is required').max(512);

const exactlyOne = (body: { code?: string; recoveryCode?: string }) => (body.code === undefined) !== (body.recoveryCode === undefined);
const exactlyOneMessage = { message: 'send either code or recoveryCode', path: ['code'] };

export const codeBody = z.object({ code });

export const verifyBody = z
  .object({ mfaToken, code: code.optional(), recoveryCode: recoveryCode.optional() })
  .refine(exactlyOne, exactlyOneMessage);

export const disableBody = z
  .object({ code: code.optional(), recoveryCode: recoveryCode.optional() })
  .refine(exactlyOne, exactlyOneMessage);
