import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { TEST_JWT_SECRET } from './running-app.js';
import { openSqlite, sqliteDate } from './sqlite-file.js';

/**
 * A valid access token of `userId` issued `minutesAgo` minutes ago, recorded in the app's SQLite
 * database as the server records its own: for the recent sign-in rule without waiting for it.
 */
export async function tokenIssuedAgo(databaseUrl: string, userId: string, minutesAgo: number): Promise<string> {
  const iat = Math.floor(Date.now() / 1000) - minutesAgo * 60;
  const jti = randomUUID();
  const db = openSqlite(databaseUrl);
  try {
    db.prepare('INSERT INTO AccessToken (id, userId, expiresAt, createdAt) VALUES (?, ?, ?, ?)').run(jti, userId, sqliteDate((iat + 604800) * 1000), sqliteDate(iat * 1000));
  } finally {
    db.close();
  }
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(userId).setJti(jti).setIssuedAt(iat).setExpirationTime(iat + 604800).sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
