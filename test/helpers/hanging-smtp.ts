import { createServer, type Socket } from 'node:net';

/**
 * A mail server that accepts TCP connections and never says a word (no greeting, no replies): the
 * way a hung SMTP server looks to a client. It counts the connections it accepted.
 */
export interface HangingSmtp {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function startHangingSmtp(): Promise<HangingSmtp> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
