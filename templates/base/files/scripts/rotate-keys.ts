// npm run keys:rotate: replaces the key that signs access tokens (JWT_ALGORITHM EdDSA or ES256)
// and re-encrypts every stored private key under the first KEY_ENCRYPTION_KEYS entry. The key that
// takes over is the next key, published since the last rotation: it signs at once, or 6 minutes
// after its publication if that is later, so verifiers that cached the key set already hold it. A
// new next key is published now; the old key stays published until its last token expires.
// Reads the same configuration as the server (.env, then the environment).
import { existsSync } from 'node:fs';
import { type Config, ConfigError, loadConfig } from '../src/config.js';
import { createPrismaClient } from '../src/db/client.js';
import { rotateSigningKeys } from '../src/modules/auth/signing-keys/signing-key-store.js';

if (existsSync('.env')) process.loadEnvFile('.env');

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : String(error));
  process.exit(1);
}
if (config.JWT_ALGORITHM === 'HS256') {
  console.error('JWT_ALGORITHM is HS256: access tokens are signed with JWT_SECRET and there is no key pair to rotate. Set JWT_ALGORITHM=EdDSA or ES256 to use key pairs.');
  process.exit(1);
}

const prisma = createPrismaClient(config.DATABASE_URL);
try {
  const rotation = await rotateSigningKeys({ config, prisma });
  const [encryptingKey] = config.KEY_ENCRYPTION_KEYS ?? [];
  console.log(`Signing key ${rotation.kid} (${config.JWT_ALGORITHM}) signs from ${rotation.activatesAt.toISOString()}; the next key, ${rotation.nextKid}, is published now.`);
  console.log(`Every stored signing key is encrypted under the KEY_ENCRYPTION_KEYS entry "${encryptingKey?.id}" (${rotation.reencrypted} re-encrypted now); any other entry can be removed.`);
} catch (error) {
  console.error(`Key rotation failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
