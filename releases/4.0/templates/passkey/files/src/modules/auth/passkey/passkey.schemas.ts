import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';

/** base64url text of bounded size: what every binary field of a WebAuthn JSON response is. */
const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

const credential = {
  id: base64url(1400).min(1),
  rawId: base64url(1400).min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

/** A RegistrationResponseJSON as browsers (and PublicKeyCredential.toJSON()) produce it. */
const registrationResponse = z.object({
  ...credential,
  response: z.object({
    clientDataJSON: base64url(8000),
    attestationObject: base64url(60_000),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

/** An AuthenticationResponseJSON. */
const authenticationResponse = z.object({
  ...credential,
  response: z.object({
    clientDataJSON: base64url(8000),
    authenticatorData: base64url(8000),
    signature: base64url(2000),
    userHandle: base64url(200).optional(),
  }),
});

/** A passkey's label: one line, at most 64 characters. */
const name = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name is required')
  .max(64, 'name is at most 64 characters')
  .refine((value) => !/[\p{Cc}]/u.test(value), 'name must be one line of text');

const mfaToken = z.string({ error: 'mfaToken is required' }).trim().min(1, 'mfaToken is required').max(512);

export const registerBody = z.object({
  response: registrationResponse.transform((value) => value as RegistrationResponseJSON),
  name: name.optional(),
});
export const signInBody = z.object({ response: authenticationResponse.transform((value) => value as AuthenticationResponseJSON) });
export const renameBody = z.object({ name });
export const secondFactorOptionsBody = z.object({ mfaToken });
export const secondFactorBody = z.object({
  mfaToken,
  response: authenticationResponse.transform((value) => value as AuthenticationResponseJSON),
});
