import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { createApp, type App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { startExpiredRowCleanup, type ExpiredRowCleanup } from './db/expired-rows.js';
import { answerClientError } from './http/client-error.js';

/** A configuration problem stops the process with a message naming the variable, before any port opens. */
async function start(): Promise<App> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  try {
    return await createApp(loadConfig(process.env));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

const { app, context, close } = await start();
const { config, logger } = context;

/** Why the port cannot be opened, in one line naming the port and what to do. */
function listenFailure(error: NodeJS.ErrnoException): string {
  const where = `port ${config.PORT}`;
  if (error.code === 'EADDRINUSE') return `${where} is in use: another process is listening on it; stop that process or set PORT to a free port`;
  if (error.code === 'EACCES') return `${where} needs privileges this process lacks; set PORT to 1024 or above`;
  if (error.code === 'EADDRNOTAVAIL') return `HOST ${config.HOST} is not an address of this machine; set HOST to one (0.0.0.0 listens on all)`;
  return `cannot listen on ${config.HOST}:${config.PORT} (${error.code ?? error.message}); check HOST and PORT`;
}

let cleanup: ExpiredRowCleanup | undefined;
const server: Server = app.listen(config.PORT, config.HOST, (error?: Error) => {
  // Express passes a listen error here as well as to the 'error' handler below, which reports it.
  if (error) return;
  logger.info({ port: config.PORT, host: config.HOST, url: config.API_URL }, 'server listening');
  // Expired tokens, challenges and sessions are deleted now and every few minutes.
  cleanup = startExpiredRowCleanup(context);
});
server.on('clientError', answerClientError);
server.on('error', (error: NodeJS.ErrnoException) => {
  logger.fatal(listenFailure(error));
  process.exit(1);
});

/**
 * Stops the cleanup of expired rows, closes the database, Redis and SMTP connections, then exits 0.
 * A pool that does not close within 5 s (a frozen database never acknowledges) makes it exit 1,
 * saying so.
 */
function closeAndExit(): void {
  setTimeout(() => {
    logger.error('connections did not close within 5 s');
    process.exit(1);
  }, 5000).unref();
  Promise.resolve(cleanup?.stop())
    .then(close)
    .then(() => {
      logger.info('stopped');
      process.exit(0);
    })
    .catch((error: unknown) => {
      logger.error({ err: error }, 'error while closing');
      process.exit(1);
    });
}

let stopping = false;
/**
 * Stops accepting connections and lets running requests finish, for up to SHUTDOWN_GRACE_SECONDS;
 * connections still open then are closed. Then the pools close and the process exits 0.
 */
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal, graceSeconds: config.SHUTDOWN_GRACE_SECONDS }, 'shutting down');
  const grace = setTimeout(() => {
    logger.warn('grace period over; closing the connections still open');
    server.closeAllConnections();
  }, config.SHUTDOWN_GRACE_SECONDS * 1000);
  grace.unref();
  // A keep-alive connection whose request just finished would stay open until the client drops
  // it; close connections as soon as they fall idle.
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  idle.unref();
  server.close(() => {
    clearTimeout(grace);
    clearInterval(idle);
    closeAndExit();
  });
  server.closeIdleConnections();
}

process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
