-- Since 4.1 a user's lastSignInAt is written when a session starts. Users who signed in before the
-- upgrade get the start of their latest session still kept (none left: unknown, as for a user who
-- never signed in), so the admin page does not show "never" for them.
UPDATE "User" SET "lastSignInAt" = (SELECT MAX("Session"."createdAt") FROM "Session" WHERE "Session"."userId" = "User"."id") WHERE "lastSignInAt" IS NULL;
