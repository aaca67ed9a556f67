-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "action" TEXT NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "targetType" TEXT,
    "targetId" TEXT,
    "organizationId" TEXT,
    "ip" TEXT,
    "userAgent" TEXT,
    "metadata" TEXT NOT NULL,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditChain" (
    "id" INTEGER NOT NULL,
    "lastSeq" INTEGER NOT NULL,
    "lastHash" TEXT NOT NULL,
    "firstSeq" INTEGER NOT NULL,
    "firstPrevHash" TEXT NOT NULL,

    CONSTRAINT "AuditChain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditDelivery" (
    "eventId" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "lockedUntil" TIMESTAMP(3),
    "abandonedAt" TIMESTAMP(3),
    "lastError" TEXT,

    CONSTRAINT "AuditDelivery_pkey" PRIMARY KEY ("eventId")
);

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_seq_key" ON "AuditEvent"("seq");

-- CreateIndex
CREATE INDEX "AuditEvent_actorId_seq_idx" ON "AuditEvent"("actorId", "seq");

-- CreateIndex
CREATE INDEX "AuditEvent_targetId_seq_idx" ON "AuditEvent"("targetId", "seq");

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_seq_idx" ON "AuditEvent"("organizationId", "seq");

-- CreateIndex
CREATE INDEX "AuditEvent_occurredAt_idx" ON "AuditEvent"("occurredAt");

-- CreateIndex
CREATE INDEX "AuditDelivery_nextAttemptAt_idx" ON "AuditDelivery"("nextAttemptAt");

-- AddForeignKey
ALTER TABLE "AuditDelivery" ADD CONSTRAINT "AuditDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "AuditEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE;
