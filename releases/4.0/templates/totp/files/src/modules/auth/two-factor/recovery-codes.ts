import { createHash, randomInt } from 'node:crypto';
import type { AppContext } from '../../../context.js';

const COUNT = 10;
/** No 0/o, 1/l/i: easy to read back from paper. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GROUPS = 4;
const GROUP_LENGTH = 4;

/** Case, spaces and hyphens do not matter when a code is typed in. */
function normalize(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

function hashCode(code: string): string {
  return createHash('sha256').update(normalize(code)).digest('hex');
}

/** One code: four groups of four characters, about 79 random bits. */
function newCode(): string {
  return Array.from({ length: GROUPS }, () =>
    Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
  ).join('-');
}

/** Replaces the user's recovery codes with ten new ones and returns them; only hashes are stored. */
export async function replaceRecoveryCodes(ctx: AppContext, userId: string): Promise<string[]> {
  const codes = Array.from({ length: COUNT }, newCode);
  await ctx.prisma.$transaction([
    ctx.prisma.recoveryCode.deleteMany({ where: { userId } }),
    ctx.prisma.recoveryCode.createMany({ data: codes.map((code) => ({ userId, codeHash: hashCode(code) })) }),
  ]);
  return codes;
}

/** Marks a recovery code used; true only the first time, even under concurrent requests. */
export async function useRecoveryCode(ctx: AppContext, userId: string, code: string): Promise<boolean> {
  const { count } = await ctx.prisma.recoveryCode.updateMany({
    where: { userId, codeHash: hashCode(code), usedAt: null },
    data: { usedAt: new Date() },
  });
  return count === 1;
}
