// Gives or takes the role admin: npm run admin -- grant <email>, npm run admin -- revoke <email>.
// The first admin comes from here, run by whoever operates the app: no request of a user who is not
// an admin can set a role.
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from '../src/config.js';
import { createPrismaClient } from '../src/db/client.js';
import { AppError } from '../src/http/app-error.js';
import { setRole } from '../src/modules/admin/admin-roles.js';

const USAGE = 'Usage: npm run admin -- grant <email>   (or: revoke <email>)';

if (existsSync('.env')) process.loadEnvFile('.env');

const [command, address] = process.argv.slice(2);
if ((command !== 'grant' && command !== 'revoke') || !address) {
  console.error(USAGE);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const prisma = createPrismaClient(config.DATABASE_URL);
try {
  const email = address.trim().toLowerCase();
  const user = await prisma.user.findUnique({ where: { email } });
  if (!user) {
    console.error(`No user has the address ${email}: they register first, then you grant them the role.`);
    process.exitCode = 1;
  } else {
    await setRole({ prisma, config }, user.id, command === 'grant' ? 'admin' : 'user');
    console.log(command === 'grant' ? `${email} is an admin.` : `${email} is no longer an admin.`);
  }
} catch (error) {
  // LAST_ADMIN: the message says what to do.
  if (!(error instanceof AppError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
