/**
 * Client authentication at the token endpoint, per provider: HTTP Basic (credentials
 * form-urlencoded, RFC 6749 2.3.1), client_secret in the body, or Apple's ES256 client-secret JWT.
 * Only one method per request, and only the methods the provider takes.
 */
import { jwtVerify } from 'jose';
import type { TokenErrorKind } from './dialects.js';
import { basicCredentials, type Exchange } from './http.js';
import type { ProviderSpec } from './spec.js';
import type { FakeContext } from './state.js';

export type ClientAuthResult = { ok: true; clientId: string; secret: string } | { ok: false; kind: TokenErrorKind; description: string };

/** Apple: "exp may be at most 15 777 000 s (about 6 months) after" iat. */
const APPLE_MAX_SECRET_SECONDS = 15_777_000;

function refuse(kind: TokenErrorKind, description: string): ClientAuthResult {
  return { ok: false, kind, description };
}

function compare(fake: FakeContext, spec: ProviderSpec, id: string, secret: string): ClientAuthResult {
  const client = fake.clients[spec.id];
  if (id !== client.id) return refuse('unknown_client', 'The OAuth client was not found.');
  if (secret !== client.secret) return refuse('bad_secret', 'The client secret is incorrect.');
  return { ok: true, clientId: id, secret };
}

async function appleSecret(fake: FakeContext, id: string, secret: string): Promise<ClientAuthResult> {
  if (id !== fake.clients.apple.id) return refuse('unknown_client', 'Unknown client_id.');
  try {
    const { payload, protectedHeader } = await jwtVerify(secret, fake.apple.publicKey, {
      algorithms: ['ES256'],
      issuer: fake.apple.teamId,
      subject: id,
      audience: `${fake.baseUrl}/apple`,
      requiredClaims: ['iat', 'exp'],
    });
    if (protectedHeader.kid !== fake.apple.keyId) return refuse('bad_secret', 'The client secret kid is not the key id.');
    if (payload.exp! - payload.iat! > APPLE_MAX_SECRET_SECONDS) return refuse('bad_secret', 'The client secret lives too long.');
  } catch (error) {
    return refuse('bad_secret', `The client secret is invalid: ${(error as Error).message}`);
  }
  return { ok: true, clientId: id, secret };
}

export async function authenticateClient(
  fake: FakeContext,
  spec: ProviderSpec,
  ex: Exchange,
  params: Record<string, string>,
): Promise<ClientAuthResult> {
  const basic = basicCredentials(ex.req);
  const { client_id: bodyId, client_secret: bodySecret } = params;
  const takes = (method: string) => (spec.clientAuth as readonly string[]).includes(method);
  if (basic === null) return refuse('unknown_client', 'Malformed HTTP Basic credentials.');
  if (basic && bodySecret !== undefined) return refuse('invalid_request', 'More than one client authentication method.');
  if (basic) {
    if (!takes('client_secret_basic')) return refuse('unknown_client', 'HTTP Basic client authentication is not supported.');
    if (bodyId !== undefined && bodyId !== basic.id) return refuse('unknown_client', 'client_id differs from the Basic credentials.');
    return compare(fake, spec, basic.id, basic.secret);
  }
  if (takes('apple_client_secret_jwt') && bodySecret !== undefined) return appleSecret(fake, bodyId ?? '', bodySecret);
  if (takes('client_secret_post') && bodySecret !== undefined) return compare(fake, spec, bodyId ?? '', bodySecret);
  if (takes('client_secret_basic') && !takes('client_secret_post')) return refuse('unauthorized_client', 'Missing valid authorization header');
  return refuse('unknown_client', 'Client authentication is required.');
}
