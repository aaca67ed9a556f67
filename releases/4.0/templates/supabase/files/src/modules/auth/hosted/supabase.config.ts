import { z } from 'zod';
import { optionalString } from '../../../config/base-config.js';

/** Supabase's variables; all optional, so the app starts without Supabase (the exchange answers 404 until URL and anon key are set). */
export const supabaseConfig = {
  SUPABASE_URL: optionalString.pipe(z.url().optional()),
  SUPABASE_ANON_KEY: optionalString,
  SUPABASE_JWT_SECRET: optionalString,
};
