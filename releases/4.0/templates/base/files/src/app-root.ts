import { fileURLToPath } from 'node:url';

/**
 * The project's root folder. This file sits one level below it both as src/app-root.ts (tsx,
 * tests) and as the built dist/app-root.js, so the same relative URL finds the root from either.
 */
export const APP_ROOT = fileURLToPath(new URL('../', import.meta.url));
