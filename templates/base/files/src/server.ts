import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { createApp, type App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
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
const { config } = context;

const server: Server = app.listen(config.PORT, config.HOST, () => {
  context.logger.info({ port: config.PORT, host: config.HOST, url: config.API_URL }, 'server listening');
});
server.on('clientError', answerClientError);
server.on('error', (error) => {
  context.logger.fatal({ err: error }, 'server failed to start');
  process.exit(1);
});

let stopping = false;
/** Stops accepting connections, lets running requests finish, then closes the database. */
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  context.logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  server.close(() => {
    close()
      .catch((error: unknown) => context.logger.error({ err: error }, 'error while closing'))
      .finally(() => process.exit(0));
  });
  server.closeIdleConnections();
}

process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
