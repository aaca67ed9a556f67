/**
 * A fake OAuth 2.0 / OpenID Connect server that speaks the wire format of twelve providers over
 * HTTP on 127.0.0.1, for tests that drive a generated app's whole sign-in flow. See README.md.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { endpointUrl, issuerOf } from './discovery.js';
import { createAppleClientKey, createSigningKey, type SigningKey } from './keys.js';
import { PROVIDERS } from './providers.js';
import { createFakeServer } from './server.js';
import { FakeState, type Client, type FakeContext } from './state.js';
import { PROVIDER_IDS, type Authorization, type Fault, type FakeUser, type ProviderId, type RecordedRequest } from './types.js';

export { PROVIDER_IDS } from './types.js';
export type { Authorization, Endpoint, Fault, FakeUser, ProviderId, RecordedRequest, RequestedClaims } from './types.js';
export { parseFormPost, type FormPost } from './form-post.js';

export interface FakeProviders {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every env var the generated app needs to use this provider against the fake (CONTRACT B.6 names). */
  env(provider: ProviderId): Record<string, string>;
  /** env() of all twelve providers, merged. */
  envAll(): Record<string, string>;
  /** Who logs in at the next authorize request of that provider (queued; each authorize takes one). */
  nextUser(provider: ProviderId, user: FakeUser): void;
  /** The next request that the fault concerns fails that way (queued; each is played once). */
  failNext(provider: ProviderId, fault: Fault): void;
  /** What the fake received, oldest first, and how it answered. */
  requests(provider?: ProviderId): RecordedRequest[];
  /** The authorize requests it consented to, with their codes (redeemed or not). */
  authorizations(provider?: ProviderId): Authorization[];
  /** Forgets queued users and faults, codes, tokens and records. Keys and secrets stay. */
  reset(): void;
  /** Ends held-open (token_hang) answers and stops the server. */
  close(): Promise<void>;
}

export interface FakeProvidersOptions {
  /** Default 0: a free port. */
  port?: number;
}

const OIDC_IDS = PROVIDER_IDS.filter((id) => PROVIDERS[id].protocol === 'oidc');

function clientsFor(): Record<ProviderId, Client> {
  const entries = PROVIDER_IDS.map((id): [ProviderId, Client] => [
    id,
    {
      id: id === 'apple' ? 'com.example.gatekit.signin' : `fake-${id}-client-id`,
      secret: id === 'apple' ? '' : `fake-${id}-secret-${randomBytes(12).toString('hex')}`,
    },
  ]);
  return Object.fromEntries(entries) as Record<ProviderId, Client>;
}

async function signingKeys(): Promise<Partial<Record<ProviderId, SigningKey>>> {
  const keys = await Promise.all(OIDC_IDS.map((id) => createSigningKey(`${id}-rs256-1`)));
  return Object.fromEntries(OIDC_IDS.map((id, i) => [id, keys[i]]));
}

function providerEnv(fake: FakeContext, provider: ProviderId): Record<string, string> {
  const spec = PROVIDERS[provider];
  const prefix = provider.toUpperCase();
  const client = fake.clients[provider];
  const credentials = { [`${prefix}_CLIENT_ID`]: client.id, ...(client.secret ? { [`${prefix}_CLIENT_SECRET`]: client.secret } : {}) };
  const url = (endpoint: 'authorize' | 'token' | 'userinfo') => endpointUrl(fake, spec, endpoint)!;
  if (spec.protocol === 'oauth2') {
    return {
      ...credentials,
      [`${prefix}_AUTHORIZATION_URL`]: url('authorize'),
      [`${prefix}_TOKEN_URL`]: url('token'),
      [`${prefix}_USERINFO_URL`]: url('userinfo'),
      ...(spec.routes.emails ? { [`${prefix}_EMAILS_URL`]: endpointUrl(fake, spec, 'emails')! } : {}),
    };
  }
  if (provider === 'microsoft') return { ...credentials, MICROSOFT_TENANT_ID: 'common', MICROSOFT_ISSUER: issuerOf(fake, spec, '{tenant}') };
  if (provider === 'apple') {
    const { teamId, keyId, privateKeyPem } = fake.apple;
    return { ...credentials, APPLE_TEAM_ID: teamId, APPLE_KEY_ID: keyId, APPLE_PRIVATE_KEY: privateKeyPem, APPLE_ISSUER: issuerOf(fake, spec) };
  }
  return { ...credentials, [`${prefix}_ISSUER`]: issuerOf(fake, spec) };
}

export async function startFakeProviders(options: FakeProvidersOptions = {}): Promise<FakeProviders> {
  const [keys, rogueKey, apple] = await Promise.all([signingKeys(), createSigningKey('rogue-rs256-1'), createAppleClientKey()]);
  const fake: FakeContext = { baseUrl: '', state: new FakeState(), clients: clientsFor(), keys, rogueKey, apple, hanging: new Set() };
  const server = createFakeServer(fake);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A client dropping its connection must not crash the test run.
  server.on('clientError', (_error, socket) => socket.destroy());
  // Idle connections outlive the clients' own keep-alive (undici: about 4 s): with Node's default
  // 5 s, a client busy for seconds (a 50 MB answer) could reuse a connection the fake just closed.
  server.keepAliveTimeout = 60_000;
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byProvider = <T extends { provider: ProviderId }>(items: Iterable<T>, provider?: ProviderId) =>
    [...items].filter((item) => !provider || item.provider === provider);

  return {
    url: fake.baseUrl,
    env: (provider) => providerEnv(fake, provider),
    envAll: () => Object.assign({}, ...PROVIDER_IDS.map((id) => providerEnv(fake, id))) as Record<string, string>,
    nextUser: (provider, user) => fake.state.queueUser(provider, user),
    failNext: (provider, fault) => fake.state.queueFault(provider, fault),
    requests: (provider) => byProvider(fake.state.records, provider),
    authorizations: (provider) => byProvider(fake.state.authorizations.values(), provider),
    reset: () => fake.state.reset(),
    close() {
      for (const res of fake.hanging) res.destroy();
      fake.hanging.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
