// The Better Auth peer for bench/cases/http.mjs: Better Auth 1.7 with email and password and the
// organization plugin, on Express 5, on SQLite through better-sqlite3 or on PostgreSQL through
// pg's Pool (the database setups its docs show), set up the way its docs show for Express:
//   app.all('/api/auth/*splat', toNodeHandler(auth))   (Express 5 path syntax; no body parser before it)
// plus a trivial GET /ok, the peer's counterpart of the generated app's /healthz.
//
//   PEER_DB=/path/to.db BETTER_AUTH_SECRET=… PORT=… node bench/peer/server.mjs [--migrate]
//   PEER_DATABASE_URL=postgresql://… BETTER_AUTH_SECRET=… PORT=… node bench/peer/server.mjs [--migrate]
//
// --migrate creates Better Auth's tables with its own migration API (getMigrations from
// better-auth/db/migration, what `npx @better-auth/cli migrate` runs) and exits without listening.
//
// Settings that differ from Better Auth's defaults, and why:
// - rateLimit disabled: the generated app runs with RATE_LIMIT_MAX=0 in the benchmark.
// - the api-key plugin (@better-auth/api-key, its counterpart of the generated app's API keys) with
//   enableSessionForAPIKeys, so get-session takes an x-api-key header, and its own rate limit (10
//   requests a day per key by default) off.
// - telemetry disabled (already its default; stated so that nothing tries the network).
// Everything else is the default: sessions are read from the database on every get-session
// (no cookie cache), as the generated app's guard reads its token row on every request; no request
// logging (Better Auth has none; the generated app logs one JSON line per request at info).
import express from 'express';
import { betterAuth } from 'better-auth';
import { apiKey } from '@better-auth/api-key';
import { organization } from 'better-auth/plugins';
import { toNodeHandler } from 'better-auth/node';
import { getMigrations } from 'better-auth/db/migration';

const file = process.env.PEER_DB;
const databaseUrl = process.env.PEER_DATABASE_URL;
if (!file === !databaseUrl) {
  console.error('set one of PEER_DB (a SQLite file) or PEER_DATABASE_URL (PostgreSQL)');
  process.exit(1);
}
const secret = process.env.BETTER_AUTH_SECRET;
if (!secret || secret.length < 32) {
  console.error('BETTER_AUTH_SECRET (at least 32 characters) is not set');
  process.exit(1);
}
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);

/** Only the driver in use is loaded, so that the other adds nothing to the peer's start-up. */
async function openDatabase() {
  if (file) {
    const { default: Database } = await import('better-sqlite3');
    return { database: new Database(file), close: (database) => database.close() };
  }
  const { default: pg } = await import('pg');
  return { database: new pg.Pool({ connectionString: databaseUrl }), close: (database) => database.end() };
}
const { database, close } = await openDatabase();

export const authOptions = {
  baseURL: `http://${host}:${port}`,
  secret,
  database,
  emailAndPassword: { enabled: true },
  plugins: [organization(), apiKey({ enableSessionForAPIKeys: true, rateLimit: { enabled: false } })],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};

if (process.argv.includes('--migrate')) {
  const { runMigrations, toBeCreated } = await getMigrations(authOptions);
  await runMigrations();
  console.log(`created ${toBeCreated.map((table) => table.table).join(', ') || 'nothing (up to date)'}`);
  await close(database);
  process.exit(0);
}

const auth = betterAuth(authOptions);
const app = express();
app.all('/api/auth/*splat', toNodeHandler(auth));
app.get('/ok', (_req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(port, host, () => {
  console.log(`better-auth peer listening on http://${host}:${port}`);
});
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
