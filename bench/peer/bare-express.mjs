// The floor for /healthz in bench/cases/http.mjs: a bare Express 5 app with helmet's defaults and
// one route, nothing else (no logger, no CORS, no body parser).
//
//   PORT=… node bench/peer/bare-express.mjs
import express from 'express';
import helmet from 'helmet';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);

const app = express();
app.use(helmet());
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(port, host, () => {
  console.log(`bare express listening on http://${host}:${port}`);
});
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
