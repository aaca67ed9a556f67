-- CreateTable
CREATE TABLE "AuthjsUser" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT,
    "email" TEXT,
    "emailVerified" DATETIME,
    "image" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "AuthjsAccount" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AuthjsAccount_userId_fkey" FOREIGN KEY ("userId") REFERENCES "AuthjsUser" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuthjsSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionTokenHash" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expires" DATETIME NOT NULL,
    "exchangedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AuthjsSession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "AuthjsUser" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuthjsVerificationToken" (
    "identifier" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "expires" DATETIME NOT NULL,

    PRIMARY KEY ("identifier", "token")
);

-- CreateIndex
CREATE UNIQUE INDEX "AuthjsUser_email_key" ON "AuthjsUser"("email");

-- CreateIndex
CREATE INDEX "AuthjsAccount_userId_idx" ON "AuthjsAccount"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "AuthjsAccount_provider_providerAccountId_key" ON "AuthjsAccount"("provider", "providerAccountId");

-- CreateIndex
CREATE UNIQUE INDEX "AuthjsSession_sessionTokenHash_key" ON "AuthjsSession"("sessionTokenHash");

-- CreateIndex
CREATE INDEX "AuthjsSession_userId_idx" ON "AuthjsSession"("userId");
