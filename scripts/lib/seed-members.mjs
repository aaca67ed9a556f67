// Seeds an organization of 10,000 members for the profiling scripts: the 9,999 users and
// memberships next to the signed-in owner are written with better-sqlite3 (the generator's
// devDependency; the SQLite file format is the app's), copying the owner's dates.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function seedMembers(databaseFile, { organizationId, userId }, count = 10_000) {
  const Database = require('better-sqlite3');
  const db = new Database(databaseFile);
  try {
    const { createdAt } = db.prepare('SELECT createdAt FROM User WHERE id = ?').get(userId);
    const addUser = db.prepare('INSERT INTO User (id, email, emailVerified, twoFactorEnabled, createdAt, updatedAt) VALUES (?, ?, 0, 0, ?, ?)');
    const addMember = db.prepare('INSERT INTO OrgMember (id, organizationId, userId, role, joinedAt) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 1; i < count; i++) {
        addUser.run(`profile-user-${i}`, `member-${i}@example.com`, createdAt, createdAt);
        addMember.run(`profile-member-${String(i).padStart(6, '0')}`, organizationId, `profile-user-${i}`, 'member', createdAt);
      }
    })();
  } finally {
    db.close();
  }
}
