// Loaded with `node --import` into a measured process: on exit, writes its peak RSS (kB) to
// the file named by BENCH_USAGE_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_USAGE_FILE) writeFileSync(process.env.BENCH_USAGE_FILE, String(process.resourceUsage().maxRSS));
});
