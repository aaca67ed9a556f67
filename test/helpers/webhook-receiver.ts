import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One POST the receiver got: the Standard Webhooks headers, the raw body, and what became of it. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Date.now() when the body had arrived. */
  receivedAt: number;
  /** The status answered; 'dropped' when the connection was cut; null while it is held unanswered. */
  answer: number | 'dropped' | null;
  /** True while the request is held unanswered and its connection is still open. */
  open: boolean;
}

/** How to treat a delivery: answer with a status, cut the connection, or hold it and never answer. */
export type WebhookAnswer = number | 'drop' | 'hang';

export interface WebhookReceiver {
  port: number;
  url: string;
  received: ReceivedWebhook[];
  /** Deliveries of one event (by webhook-id), in the order they came. */
  deliveriesOf(id: string): ReceivedWebhook[];
  /** Polls until `done()` holds; rejects after `timeoutMs` with `what` and what was received. */
  waitUntil(done: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTP server standing in for a webhook receiver (a SIEM's collector), on 127.0.0.1. `answer`
 * decides per delivery; it sees the delivery and how many of the same webhook-id came before.
 */
export async function startWebhookReceiver(
  options: { port?: number; answer?: (delivery: ReceivedWebhook, earlier: number) => WebhookAnswer } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const sockets = new Set<Socket>();
  const decide = options.answer ?? (() => 200);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const header = (name: string) => String(req.headers[name] ?? '');
      const delivery: ReceivedWebhook = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        answer: null,
        open: true,
      };
      const earlier = received.filter((one) => one.id === delivery.id).length;
      received.push(delivery);
      const answer = decide(delivery, earlier);
      req.socket.once('close', () => {
        delivery.open = false;
      });
      if (answer === 'hang') return;
      if (answer === 'drop') {
        delivery.answer = 'dropped';
        req.socket.destroy();
        return;
      }
      delivery.answer = answer;
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'not now');
      delivery.open = false;
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/audit-events`,
    received,
    deliveriesOf: (id) => received.filter((one) => one.id === id),
    waitUntil: async (done, what, timeoutMs = 30_000) => {
      for (const deadline = Date.now() + timeoutMs; !done(); ) {
        if (Date.now() > deadline)
          throw new Error(`the receiver never saw ${what}; it got ${JSON.stringify(received.map(({ id, answer }) => ({ id, answer })))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Standard Webhooks secret: whsec_ and base64 of 32 random bytes. */
export function webhookSecret(bytes: Buffer): string {
  return `whsec_${bytes.toString('base64')}`;
}

/**
 * The Standard Webhooks check, written out with node:crypto rather than a library: the key is the
 * base64 after `whsec_`, the signed content `${webhook-id}.${webhook-timestamp}.${body}`, and the
 * header a space-separated list of `v1,<base64 HMAC-SHA256>`, one of which must match.
 */
export function signatureVerifies(secret: string, delivery: Pick<ReceivedWebhook, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${delivery.id}.${delivery.timestamp}.${delivery.body}`).digest();
  return delivery.signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
