// Generates the Prisma client into src/generated/prisma.
//
// Prisma's CLI downloads its native schema engine before running any command, even `generate`,
// which only needs the WebAssembly schema parser shipped in the npm package. On machines that
// cannot reach Prisma's download host (air-gapped networks, strict proxies) that download fails.
// PRISMA_SCHEMA_ENGINE_BINARY is Prisma's documented override for the engine's location; pointing
// it at any existing file lets `generate` run offline. It is set only for this one command and
// only when you have not set it yourself, so `prisma migrate dev` and friends behave as usual.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const prismaCli = require.resolve('prisma/build/index.js');
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

const result = spawnSync(process.execPath, [prismaCli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
