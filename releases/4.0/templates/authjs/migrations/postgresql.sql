-- CreateTable
CREATE TABLE "AuthjsUser" (
    "id" TEXT NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "emailVerified" TIMESTAMP(3),
    "image" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthjsUser_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuthjsAccount" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthjsAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuthjsSession" (
    "id" TEXT NOT NULL,
    "sessionTokenHash" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expires" TIMESTAMP(3) NOT NULL,
    "exchangedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthjsSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuthjsVerificationToken" (
    "identifier" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "expires" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AuthjsVerificationToken_pkey" PRIMARY KEY ("identifier","token")
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

-- AddForeignKey
ALTER TABLE "AuthjsAccount" ADD CONSTRAINT "AuthjsAccount_userId_fkey" FOREIGN KEY ("userId") REFERENCES "AuthjsUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuthjsSession" ADD CONSTRAINT "AuthjsSession_userId_fkey" FOREIGN KEY ("userId") REFERENCES "AuthjsUser"("id") ON DELETE CASCADE ON UPDATE CASCADE;
