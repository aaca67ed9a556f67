/**
 * Small HTTP helpers for the fake providers: read and parse a request body, answer in JSON, form,
 * HTML or a redirect, and read client credentials and bearer tokens from headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from './types.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** One request in flight: the parsed parts, and the record it fills in. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  query: Record<string, string>;
  /** The form fields when the body is application/x-www-form-urlencoded, else undefined. */
  form?: Record<string, string>;
  /** The parsed JSON when the body is application/json, else undefined. */
  json?: unknown;
  record: RecordedRequest;
  /** Set by a *_huge fault: the answer is padded to HUGE_ANSWER_BYTES and streamed. */
  huge?: string;
}

/** The padding of a *_huge fault: far above any limit a client should have. */
export const HUGE_ANSWER_BYTES = 50 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function fromSearchParams(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in out)) out[key] = value;
  return out;
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Form fields and JSON of a body, by its content type. */
export function parseBody(req: IncomingMessage, text: string): { form?: Record<string, string>; json?: unknown; raw?: string } {
  if (!text) return {};
  const type = mediaType(req);
  if (type === 'application/x-www-form-urlencoded') return { form: fromSearchParams(new URLSearchParams(text)) };
  if (type === 'application/json') {
    try {
      return { json: JSON.parse(text) as unknown };
    } catch {
      return { raw: text };
    }
  }
  return { raw: text };
}

/** Writes one chunk; resolves once the socket takes more (or is gone). */
function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.write(chunk)) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** What goes before and after the padding: a last member of a JSON object or array, or a form field. */
function paddingAround(type: string, body: string): [string, string] {
  if (!type.startsWith('application/json')) return [`${body}&x_padding=`, ''];
  const trimmed = body.trim();
  const close = trimmed.slice(-1);
  const inner = trimmed.slice(0, -1);
  const separator = inner.length > 1 ? ',' : '';
  return close === ']' ? [`${inner}${separator}"`, '"]'] : [`${inner}${separator}"x_padding":"`, '"}'];
}

/**
 * The answer with a padding member of HUGE_ANSWER_BYTES (JSON: `"x_padding": "aaa…"`, form:
 * `&x_padding=aaa…`), streamed chunk by chunk without Content-Length, so a client that stops
 * reading stops the download; bytesSent, complete and abandoned say how far it went.
 */
async function streamHuge(ex: Exchange, type: string, body: string): Promise<void> {
  const { res, record } = ex;
  const [prefix, suffix] = paddingAround(type, body);
  let closed = false;
  res.once('close', () => {
    closed = true;
    record.abandoned = !record.complete;
  });
  record.bytesSent = 0;
  record.complete = false;
  const chunk = 'a'.repeat(64 * 1024);
  await write(res, prefix);
  while (!closed && record.bytesSent < HUGE_ANSWER_BYTES) {
    await write(res, chunk);
    record.bytesSent += chunk.length;
  }
  if (closed) return;
  res.end(suffix);
  record.complete = true;
}

function finish(ex: Exchange, status: number, outcome: string, type: string, body: string, headers: Record<string, string> = {}): void {
  ex.record.status = status;
  ex.record.outcome = ex.huge ?? outcome;
  if (ex.huge) {
    ex.res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
    void streamHuge(ex, type, body);
    return;
  }
  ex.res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  ex.res.end(body);
}

export function sendJson(ex: Exchange, status: number, body: unknown, outcome = 'ok', headers?: Record<string, string>): void {
  finish(ex, status, outcome, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function sendForm(ex: Exchange, status: number, fields: Record<string, string>, outcome = 'ok'): void {
  finish(ex, status, outcome, 'application/x-www-form-urlencoded; charset=utf-8', new URLSearchParams(fields).toString());
}

export function sendHtml(ex: Exchange, status: number, html: string, outcome = 'ok'): void {
  finish(ex, status, outcome, 'text/html; charset=utf-8', html);
}

export function sendText(ex: Exchange, status: number, text: string, outcome: string): void {
  finish(ex, status, outcome, 'text/plain; charset=utf-8', text);
}

export function redirect(ex: Exchange, location: string, outcome: string): void {
  finish(ex, 302, outcome, 'text/plain; charset=utf-8', `Found. Redirecting to ${location}`, { location });
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * Client id and secret from `Authorization: Basic`, each form-urlencoded before base64 as RFC 6749
 * 2.3.1 says. Undefined without a Basic header; null when the header is malformed.
 */
export function basicCredentials(req: IncomingMessage): { id: string; secret: string } | null | undefined {
  const header = req.headers.authorization;
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** The token of `Authorization: <scheme> <token>` for one of the schemes (case-insensitive). */
export function authorizationToken(req: IncomingMessage, schemes: readonly string[]): string | undefined {
  const match = /^(\S+)\s+(\S+)$/.exec(req.headers.authorization ?? '');
  if (!match || !schemes.includes(match[1]!.toLowerCase())) return undefined;
  return match[2];
}
