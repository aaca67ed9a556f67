import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('the database', () => {
  // 2^53 + 1: the first integer a JavaScript number cannot hold. The schema has no BigInt column,
  // so raw queries carry the value through the driver, as a literal and as a parameter.
  const beyondNumber = 9007199254740993n;

  it('reads a BigInt beyond 2^53 back exactly', async () => {
    const rows = await app.context.prisma.$queryRaw<{ value: bigint }[]>`SELECT CAST(9007199254740993 AS BIGINT) AS value`;
    expect(rows).toEqual([{ value: beyondNumber }]);
  });

  it('writes a BigInt beyond 2^53 and reads it back exactly', async () => {
    const rows = await app.context.prisma.$queryRaw<{ value: bigint }[]>`SELECT CAST(${beyondNumber} AS BIGINT) AS value`;
    expect(rows).toEqual([{ value: beyondNumber }]);
  });
});
