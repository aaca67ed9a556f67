import { Socket } from 'node:net';

export const REDIS_HOST = '127.0.0.1';
export const REDIS_PORT = 6379;

/** Sends one command in RESP over a plain socket and resolves with the first reply line. */
export function redisCommand(db: number, ...args: string[]): Promise<string> {
  const encode = (parts: string[]) => `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let reply = '';
    socket.setTimeout(3000, () => socket.destroy(new Error('redis timed out')));
    socket.once('error', reject);
    socket.connect(REDIS_PORT, REDIS_HOST, () => socket.write(encode(['SELECT', String(db)]) + encode(args)));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const lines = reply.split('\r\n');
      if (lines.length >= 3) {
        socket.end();
        resolve(lines[1]!);
      }
    });
  });
}
