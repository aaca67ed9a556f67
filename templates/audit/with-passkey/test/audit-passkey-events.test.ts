import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRows, call, clientHeaders, expectEvent, onlyEvent, Secrets } from './helpers/audit.js';
import { createUserWithToken, startTestApp, uniqueEmail, type TestApp } from './helpers/test-app.js';

// Passkey events (B.16 rule 3 with passkey): added, removed, a sign-in and a refused one. The
// authenticator is a small software one written here with node:crypto (ES256, `none` attestation).

let app: TestApp;
const secrets = new Secrets();
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

const ORIGIN = 'http://app.test';
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer) => data.toString('base64url');

type Cbor = number | string | Buffer | Map<number | string, Cbor>;
function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
}
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([cborHead(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([cborHead(2, value.length), value]);
  return Buffer.concat([cborHead(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

interface Credential {
  id: Buffer;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

/** navigator.credentials.create(): a resident P-256 credential with user verification. */
function create(options: { challenge: string; rp: { id: string }; user: { id: string } }): { credential: Credential; response: unknown } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const id = randomBytes(32);
  const cose = cbor(
    new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  const authData = Buffer.concat([
    sha256(options.rp.id),
    Buffer.from([0x01 | 0x04 | 0x40]),
    Buffer.alloc(4),
    Buffer.alloc(16),
    idLength,
    id,
    cose,
  ]);
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: ORIGIN, crossOrigin: false }),
  );
  const attestationObject = cbor(
    new Map<string, Cbor>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]),
  );
  return {
    credential: { id, userHandle: options.user.id, privateKey, counter: 0 },
    response: {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
    },
  };
}

/** navigator.credentials.get(): an assertion, signed by `signWith` (the credential's own key unless a forger's). */
function get(options: { challenge: string; rpId: string }, credential: Credential, signWith = credential.privateKey): unknown {
  credential.counter += 1;
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(credential.counter);
  const authData = Buffer.concat([sha256(options.rpId), Buffer.from([0x01 | 0x04]), counter]);
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: ORIGIN, crossOrigin: false }),
  );
  const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), signWith);
  return {
    id: b64url(credential.id),
    rawId: b64url(credential.id),
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64url(clientDataJSON),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      userHandle: credential.userHandle,
    },
  };
}

async function addPasskey(token: string, name: string, agent = 'passkey agent') {
  const options = await call(app, '/api/auth/passkey/register/options', { method: 'POST', token });
  expect(options.status).toBe(200);
  const { credential, response } = create(options.body);
  const added = await call(app, '/api/auth/passkey/register/verify', {
    method: 'POST',
    token,
    json: { response, name },
    headers: clientHeaders(agent),
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return { credential, passkeyId: added.body.passkey.id as string };
}

async function signInWith(credential: Credential, signWith?: KeyObject) {
  const options = await call(app, '/api/auth/passkey/login/options', { method: 'POST' });
  const answer = await call(app, '/api/auth/passkey/login/verify', {
    method: 'POST',
    json: { response: get(options.body, credential, signWith) },
    headers: clientHeaders('passkey sign-in'),
  });
  secrets.addFrom(answer.body);
  return answer;
}

describe('passkey events', () => {
  it('records a passkey added and removed by the user, naming it', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app, uniqueEmail('passkey'), { emailVerified: true });
    secrets.add(token, refreshToken);
    const laptop = await addPasskey(token, 'Laptop');
    await addPasskey(token, 'Phone');
    const self = { type: 'user', id: user.id };
    const added = await auditRows(app, { action: 'passkey.added', targetId: user.id });
    expect(added).toHaveLength(2);
    expectEvent(added[0]!, {
      actor: self,
      target: self,
      ip: '127.0.0.1',
      userAgent: 'passkey agent',
      metadata: { passkeyId: laptop.passkeyId, name: 'Laptop' },
    });
    expect(
      (await call(app, `/api/auth/passkeys/${laptop.passkeyId}`, { method: 'DELETE', token, headers: clientHeaders('remove agent') }))
        .status,
    ).toBe(204);
    expectEvent(await onlyEvent(app, 'passkey.removed', { targetId: user.id }), {
      actor: self,
      target: self,
      userAgent: 'remove agent',
      metadata: { passkeyId: laptop.passkeyId },
    });
  });

  it('records a passkey sign-in, and a signature by another key as a failed one', async () => {
    const { user, token, refreshToken } = await createUserWithToken(app, uniqueEmail('passkey'), { emailVerified: true });
    secrets.add(token, refreshToken);
    const { credential } = await addPasskey(token, 'Key');
    expect((await signInWith(credential)).status).toBe(200);
    const signedIn = (await auditRows(app, { action: 'auth.signed_in', targetId: user.id })).at(-1)!;
    expectEvent(signedIn, {
      actor: { type: 'user', id: user.id },
      target: { type: 'user', id: user.id },
      userAgent: 'passkey sign-in',
      metadata: { method: 'passkey' },
    });

    const before = await app.context.prisma.auditEvent.count();
    const forged = await signInWith(credential, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    expect(forged.status).toBe(401);
    const [failed] = await auditRows(app, { seq: { gt: before } });
    expect(failed).toMatchObject({ action: 'auth.sign_in_failed', actorType: 'user', actorId: null, userAgent: 'passkey sign-in' });
    expect(JSON.parse(failed!.metadata)).toEqual({ method: 'passkey', reason: 'invalid_credentials' });
  });
});

describe('secrets', () => {
  it('no event holds a token this file saw', async () => {
    await secrets.expectNoneIn(app);
  });
});
