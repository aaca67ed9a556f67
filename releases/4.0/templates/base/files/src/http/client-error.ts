import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** The response in progress on a socket, as Node's own client-error handling checks it. */
type SocketWithResponse = Duplex & { _httpMessage?: { headersSent?: boolean } };

/**
 * Node answers requests it cannot parse (headers over 16 kB, broken HTTP) before Express sees
 * them. This gives those answers the app's error shape too. When a response was already sent on
 * the connection (bytes after a request that was answered), it is closed instead, as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as SocketWithResponse)._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const message = tooLarge ? 'The request headers are larger than 16 kB.' : 'The request is not valid HTTP.';
  const body = JSON.stringify({ error: { code: 'VALIDATION_ERROR', message } });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
