import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

/** What a route of the stub answers: JSON with a status, or nothing at all ('hang'). */
export type StubReply = { status: number; json: unknown } | 'hang';

/** A stand-in for a hosted service's HTTP API on 127.0.0.1, for the exchanges' tests. */
export interface ServiceStub {
  url: string;
  /** Headers of every request received, by path. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Sets what GET <path> answers; unknown paths answer 404. */
  answer(path: string, reply: StubReply): void;
  close(): Promise<void>;
}

export async function startServiceStub(): Promise<ServiceStub> {
  const replies = new Map<string, StubReply>();
  const requests: ServiceStub['requests'] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://stub').pathname;
    requests.push({ path, headers: req.headers });
    const reply = replies.get(path) ?? { status: 404, json: { error: 'not_found' } };
    if (reply === 'hang') return;
    res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer: (path, reply) => void replies.set(path, reply),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A signing key of a service: its public JWK (with kid and alg) and SPKI PEM, and a signer. */
export interface ServiceKey {
  jwk: JWK;
  pem: string;
  sign(claims: JWTPayload, header?: Record<string, unknown>): Promise<string>;
}

export async function serviceKey(alg: 'RS256' | 'ES256', kid = `${alg.toLowerCase()}-test`): Promise<ServiceKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { modulusLength: 2048, extractable: true });
  return {
    jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
    pem: await exportSPKI(publicKey),
    sign: (claims, header = {}) => new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'JWT', ...header }).sign(privateKey),
  };
}

/** Seconds since the epoch, as tokens count time. */
export const now = () => Math.floor(Date.now() / 1000);
