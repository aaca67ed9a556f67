/**
 * npm run audit:verify: checks the audit log's hash chain from its oldest kept event to its end.
 * Exit 0 with the number of events when it holds; exit 1 naming the first event that was changed,
 * removed or inserted since it was written.
 */
import { existsSync } from 'node:fs';
import { createPrismaClient } from '../src/db/client.js';
import { verifyChain } from '../src/modules/audit/audit-chain.js';

if (existsSync('.env')) process.loadEnvFile('.env');

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set. Copy .env.example to .env or export DATABASE_URL.');
  process.exit(2);
}

const WHAT = {
  changed: 'was changed after it was written',
  removed: 'is missing: it was removed',
  inserted: 'was inserted: the chain does not lead to it',
};

const prisma = createPrismaClient(url);
try {
  const result = await verifyChain(prisma);
  if ('events' in result) {
    console.log(`audit log verified: ${result.events} events in one unbroken chain`);
  } else {
    const which = result.id ? `event #${result.seq} (${result.id})` : `event #${result.seq}`;
    console.error(`audit log broken: ${which} ${WHAT[result.problem]}. The events after it are not proven either.`);
    process.exitCode = 1;
  }
} finally {
  await prisma.$disconnect();
}
