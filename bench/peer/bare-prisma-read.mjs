// The stack's floor for /api/auth/me in bench/cases/http.mjs: a bare Express 5 app (no helmet,
// no logger, no CORS, no body parser) whose one route reads a user by id with Prisma. It runs the
// generated app's own Prisma client, built into its dist/, through the app's own createPrismaClient
// (the same Prisma version, adapter, adapter options and database), and the app's own Express.
// /me's server CPU per request minus this route's is what the app's guard, token check, middleware
// and answer add on top of the one read it cannot avoid.
//
//   GATEKIT_APP=<generated app, built> DATABASE_URL=<the app's> PORT=… node bench/peer/bare-prisma-read.mjs
//
//   GET /healthz                      {"status":"ok"}, no database (for the start-up probe)
//   GET /users/:id                    prisma.user.findFirst({ where: { id } }): the read the target compares
//                                     against (the guard's method, without its condition on the token)
//   GET /users/:id/unique             prisma.user.findUnique({ where: { id } }), for information: Prisma
//                                     batches concurrent findUnique calls, which costs CPU under load
//   GET /users/:id/sessions/:sid      the guard's own query (the user, provided the access token's
//                                     session lives), for information: what the condition on the session costs
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const appDir = process.env.GATEKIT_APP;
const url = process.env.DATABASE_URL;
if (!appDir || !url) {
  console.error('GATEKIT_APP (a built generated app) and DATABASE_URL are required');
  process.exit(1);
}
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);

const express = createRequire(path.join(path.resolve(appDir), 'package.json'))('express');
const { createPrismaClient } = await import(pathToFileURL(path.resolve(appDir, 'dist/db/client.js')).href);
const prisma = createPrismaClient(url);

const answer = (res, user) => {
  if (!user) return res.status(404).json({ error: 'not found' });
  res.json({ user: { id: user.id, email: user.email, name: user.name } });
};

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/users/:id', async (req, res) => {
  answer(res, await prisma.user.findFirst({ where: { id: req.params.id } }));
});
app.get('/users/:id/unique', async (req, res) => {
  answer(res, await prisma.user.findUnique({ where: { id: req.params.id } }));
});
app.get('/users/:id/sessions/:sid', async (req, res) => {
  const live = { id: req.params.sid, expiresAt: { gt: new Date() } };
  answer(res, await prisma.user.findFirst({ where: { id: req.params.id, sessions: { some: live } } }));
});

const server = app.listen(port, host, () => {
  console.log(`bare prisma read listening on http://${host}:${port}`);
});
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
const stop = () => server.close(() => prisma.$disconnect().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
