import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { TEST_JWT_SECRET } from './running-app.js';
import { openSqlite, sqliteDate } from './sqlite-file.js';

/**
 * A valid access token of a session of `userId` that signed in `minutesAgo` minutes ago, recorded
 * in the app's SQLite database as the server records its own: for the recent sign-in rule without
 * waiting for it.
 */
export async function tokenIssuedAgo(databaseUrl: string, userId: string, minutesAgo: number): Promise<string> {
  const signedInAt = Math.floor(Date.now() / 1000) - minutesAgo * 60;
  const sessionId = randomUUID();
  const expiresAt = sqliteDate(Date.now() + 86_400_000);
  const db = openSqlite(databaseUrl);
  try {
    db.prepare('INSERT INTO Session (id, userId, method, createdAt, lastUsedAt, expiresAt, maxExpiresAt) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      sessionId,
      userId,
      'password',
      sqliteDate(signedInAt * 1000),
      sqliteDate(signedInAt * 1000),
      expiresAt,
      expiresAt,
    );
  } finally {
    db.close();
  }
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid: sessionId, auth_time: signedInAt })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + 900)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
