/**
 * Malformed requests for the fuzz test: random JSON shapes, wrong types, huge and deep values,
 * bad encodings and odd headers, from a seeded generator so that a failure can be replayed
 * (GATEKIT_FUZZ_SEED).
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';

/** mulberry32: a small, fast, seedable generator. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Route {
  method: string;
  /** OpenAPI path with {params}. */
  path: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was chosen, for the failure message. */
  description: string;
}

/** Field names the app's routes read, so random bodies reach validation and beyond. */
const FIELDS = ['email', 'password', 'name', 'token', 'code', 'mfaToken', 'recoveryCode', 'role', 'slug', 'description', 'resend', 'currentPassword', 'newPassword', 'cursor', 'limit', 'id', 'emailVerified', '__proto__', 'constructor'];

const STRINGS = [
  '',
  ' ',
  'a@example.com',
  'A@EXAMPLE.COM, b@example.com',
  '"quoted"@example.com',
  'line\r\nbreak@example.com',
  'admin',
  'owner',
  'member',
  '123456',
  'correct horse battery staple',
  '\u0000',
  '\ud800',
  '\u202e\u2066',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%ZZ%00%',
  '${jndi:ldap://x}',
  '🦄'.repeat(40),
  'null',
];

export interface FuzzAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends a request exactly as made (node:http: fetch would fix the path and drop some headers). */
export function sendFuzzRequest(baseUrl: string, request: FuzzRequest): Promise<FuzzAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method: request.method, path: request.path, headers: { ...request.headers, connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

export function createFuzzer(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const int = (max: number) => Math.floor(random() * max);

  function randomString(): string {
    if (chance(0.6)) return pick(STRINGS);
    if (chance(0.3)) return 'x'.repeat(1 + int(chance(0.2) ? 90_000 : 300));
    return Array.from({ length: 1 + int(40) }, () => String.fromCharCode(int(0x3000))).join('');
  }

  function deep(depth: number): unknown {
    let value: unknown = randomValue(0);
    for (let i = 0; i < depth; i++) value = chance(0.5) ? [value] : { [pick(FIELDS)]: value };
    return value;
  }

  function randomValue(level: number): unknown {
    const kind = int(level > 2 ? 6 : 9);
    switch (kind) {
      case 0:
        return randomString();
      case 1:
        return pick([0, -1, 1e309 / 1e309, 2 ** 53 + 1, -0, 1.5, 999_999_999_999]);
      case 2:
        return chance(0.5);
      case 3:
        return null;
      case 4:
        return pick(STRINGS);
      case 5:
        return int(1_000_000);
      case 6:
        return Array.from({ length: int(5) }, () => randomValue(level + 1));
      case 7:
        return Object.fromEntries(Array.from({ length: int(6) }, () => [pick(FIELDS), randomValue(level + 1)]));
      default:
        return deep(int(200));
    }
  }

  /** A JSON text that may be broken, or a value that is valid JSON of a surprising shape. */
  function randomBody(): { text: string; what: string } {
    const choice = int(10);
    if (choice === 0) return { text: pick(['{', '{"a":', '[1,2', '{"a":1}}', 'nul', "{'a':1}", '{"a":1,}', '\u0000', '']), what: 'broken JSON' };
    if (choice === 1) return { text: JSON.stringify(randomValue(3)), what: 'a JSON primitive or array' };
    if (choice === 2) {
      const depth = 1000 + int(40_000);
      return chance(0.5)
        ? { text: `${'['.repeat(depth)}${']'.repeat(depth)}`, what: 'deep arrays' }
        : { text: `${`{"${pick(FIELDS)}":`.repeat(depth)}1${'}'.repeat(depth)}`, what: 'deep objects' };
    }
    if (choice === 3) return { text: JSON.stringify({ padding: 'x'.repeat(110 * 1024) }), what: 'over 100 kB' };
    if (choice === 4) return { text: '{"a":"\\ud800","b":"\\u0000"}', what: 'escaped lone surrogate and NUL' };
    const object = Object.fromEntries(Array.from({ length: 1 + int(6) }, () => [pick(FIELDS), randomValue(0)]));
    return { text: JSON.stringify(object), what: 'an object of random fields' };
  }

  function randomSegment(realIds: string[]): string {
    const choice = int(8);
    if (choice === 0 && realIds.length) return pick(realIds);
    if (choice === 1) return pick(['%ZZ', '%', '%E0%A4%A', '%00', '%2F..%2F', '%C0%AF', 'a%00b', '%0A', '%0d%0a', '%1F', '%7F', '%E2%80%AE']);
    if (choice === 2) return 'x'.repeat(1 + int(3000));
    if (choice === 3) return encodeURIComponent(randomString().replace(/[\ud800-\udfff]/g, '?')).slice(0, 2000) || 'a';
    return Math.random().toString(36).slice(2);
  }

  function randomQuery(): string {
    if (!chance(0.5)) return '';
    const params = ['limit=-1', 'limit=abc', 'limit=1e9', 'limit[]=1', 'cursor=%ZZ', `cursor=${'c'.repeat(600)}`, 'token=', 'token[a]=b', 'token=%00', 'limit=50&limit=60', `token=${'t'.repeat(2000)}`];
    return `?${Array.from({ length: 1 + int(3) }, () => pick(params)).join('&')}`;
  }

  return {
    next(routes: Route[], tokens: { valid: () => string | undefined }, realIds: string[]): FuzzRequest {
      const route = pick(routes);
      const method = chance(0.05) ? pick(['PATCH', 'OPTIONS', 'HEAD', 'PUT', 'DELETE']) : route.method;
      const path = route.path.replace(/\{[^}]+\}/g, () => randomSegment(realIds)) + randomQuery();
      const headers: Record<string, string> = {};
      const notes: string[] = [];
      const auth = int(5);
      if (auth <= 1 && tokens.valid()) headers.authorization = `Bearer ${tokens.valid()}`;
      else if (auth === 2) headers.authorization = pick(['Bearer ', 'Bearer a.b.c', 'Basic Zm9vOmJhcg==', `Bearer ${'x'.repeat(3000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']);
      notes.push(`auth ${auth <= 1 ? 'valid' : auth === 2 ? 'garbage' : 'none'}`);
      if (chance(0.15)) headers['x-forwarded-for'] = pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1', 'x'.repeat(4000)]);
      if (chance(0.1)) headers.host = pick(['evil.test', '', 'a'.repeat(300), '[::1]:99999']);
      if (chance(0.1)) headers.origin = pick(['http://evil.test', 'null', 'http://frontend.test']);
      if (chance(0.05)) headers['x-large'] = 'h'.repeat(8000);
      let body: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD' && chance(0.85)) {
        const { text, what } = randomBody();
        notes.push(`body ${what}`);
        body = Buffer.from(text);
        headers['content-type'] = chance(0.8)
          ? pick(['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'])
          : pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-7', 'multipart/form-data; boundary=x', '']);
        const encoding = int(12);
        if (encoding === 0) {
          body = gzipSync(body);
          headers['content-encoding'] = 'gzip';
        } else if (encoding === 1) {
          body = Buffer.concat([gzipSync(body).subarray(0, 8), Buffer.from('corrupt')]);
          headers['content-encoding'] = 'gzip';
        } else if (encoding === 2) {
          headers['content-encoding'] = pick(['br', 'x-unknown', 'deflate']);
        }
        if (headers['content-encoding']) notes.push(`content-encoding ${headers['content-encoding']}`);
      }
      return { method, path, headers, body, description: `${method} ${path.slice(0, 120)} (${notes.join(', ')}; headers ${Object.keys(headers).join(',')})` };
    },
    /** A few requests Node itself has to refuse (not HTTP, huge headers). */
    rawRequest(): string {
      return pick([
        'NOT HTTP AT ALL\r\n\r\n',
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: abc\r\n\r\n',
        'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
        'GET /%%% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ]);
    },
  };
}
