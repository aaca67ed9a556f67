/**
 * A software WebAuthn authenticator for the tests, written here with node:crypto so the app's
 * library is checked against an independent implementation: P-256 (ES256) credentials, `none`
 * attestation, discoverable credentials with a user handle, a signature counter, and the
 * authenticator data flags UP, UV, AT, BE and BS. Every output can be bent the ways an attacker or
 * a broken authenticator would: another origin or RP id, user verification off, a counter that
 * goes back, a signature by another key, a response for another challenge or ceremony.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// ---- a minimal CBOR encoder (RFC 8949): the few shapes attestation objects and COSE keys use ----

type Cbor = number | string | Uint8Array | boolean | Cbor[] | Map<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function encodeCbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'boolean') return Buffer.from([value ? 0xf5 : 0xf4]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)])]);
}

// ---- WebAuthn structures ----

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

/** The COSE_Key of an EC2 P-256 public key for ES256 (alg -7). */
export function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return encodeCbor(
    new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

export function authenticatorData(options: { rpId: string; flags: number; counter: number; attested?: { credentialId: Buffer; publicKey: KeyObject } }): Buffer {
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(options.counter >>> 0);
  const parts: Buffer[] = [sha256(options.rpId), Buffer.from([options.flags]), counter];
  if (options.attested) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(options.attested.credentialId.length);
    parts.push(Buffer.alloc(16), length, options.attested.credentialId, coseKey(options.attested.publicKey));
  }
  return Buffer.concat(parts);
}

export interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  counter: number;
}

/** How a response may be bent. Each field replaces what an honest authenticator and browser would send. */
export interface Misbehaviour {
  origin?: string;
  rpId?: string;
  /** false: the UV flag is off (the user was not verified). */
  userVerified?: boolean;
  /** The signature counter to report (an honest one reports the next value). */
  counter?: number;
  /** Sign with this key instead of the credential's. */
  signWith?: KeyObject;
  /** Sign this challenge instead of the one in the options. */
  challenge?: string;
  /** The clientData type (webauthn.create / webauthn.get). */
  type?: string;
  /** Present this credential id instead of the signing credential's. */
  credentialId?: string;
  /** Send this user handle instead of the credential's. */
  userHandle?: string;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: { id: string }[];
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Backup eligible and backed up (a synced passkey): sets BE and BS. */
  synced = true;

  constructor(readonly origin: string) {}

  private flags(userVerified: boolean, attested: boolean): number {
    return FLAGS.UP | (userVerified ? FLAGS.UV : 0) | (this.synced ? FLAGS.BE | FLAGS.BS : 0) | (attested ? FLAGS.AT : 0);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a new resident P-256 credential and its `none` attestation, as JSON. */
  create(options: CreationOptions, bend: Misbehaviour = {}) {
    const rpId = options.rp.id!;
    if (options.excludeCredentials?.some((excluded) => this.credentials.some((credential) => b64url(credential.id) === excluded.id))) {
      throw new Error('InvalidStateError: this authenticator already holds an excluded credential');
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: SoftCredential = { id: randomBytes(32), rpId, userHandle: options.user.id, privateKey, publicKey, counter: 0 };
    const authData = authenticatorData({
      rpId: bend.rpId ?? rpId,
      flags: this.flags(bend.userVerified ?? true, true),
      counter: bend.counter ?? 0,
      attested: { credentialId: credential.id, publicKey },
    });
    const attestationObject = encodeCbor(new Map<string, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    const clientDataJSON = this.clientData(bend.type ?? 'webauthn.create', bend.challenge ?? options.challenge, bend.origin ?? this.origin);
    this.credentials.push(credential);
    return {
      credential,
      response: {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      },
    };
  }

  /** navigator.credentials.get(): an assertion by `credential` (default: the first one this authenticator may use). */
  get(options: RequestOptions, bend: Misbehaviour = {}, credential?: SoftCredential) {
    const allowed = options.allowCredentials ?? [];
    const chosen =
      credential ?? this.credentials.find((candidate) => allowed.length === 0 || allowed.some((allow) => allow.id === b64url(candidate.id)));
    if (!chosen) throw new Error('NotAllowedError: no credential of this authenticator fits the options');
    const counter = bend.counter ?? chosen.counter + 1;
    chosen.counter = Math.max(chosen.counter, counter);
    const authData = authenticatorData({ rpId: bend.rpId ?? options.rpId ?? chosen.rpId, flags: this.flags(bend.userVerified ?? true, false), counter });
    const clientDataJSON = this.clientData(bend.type ?? 'webauthn.get', bend.challenge ?? options.challenge, bend.origin ?? this.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), bend.signWith ?? chosen.privateKey);
    const id = bend.credentialId ?? b64url(chosen.id);
    return {
      id,
      rawId: id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: bend.userHandle ?? chosen.userHandle,
      },
    };
  }
}

/** A P-256 key that belongs to no credential, for signatures by the wrong key. */
export function strayKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}
