import { PACKAGE_MANAGERS, splitIds, type PackageManager, type PartialChoices } from '../core/choices.js';
import { UsageError } from '../core/errors.js';
import { DATABASES, type Database } from '../core/manifest.js';
import { didYouMean } from '../core/suggest.js';

/** The generate command's options as commander hands them over. */
export interface GenerateFlags {
  auth?: string;
  oauth?: string;
  hosted?: string;
  modules?: string;
  /** Each feature module's own flag that was given: --orgs is { orgs: true }, --no-pages { pages: false }. */
  toggles?: Record<string, boolean>;
  db?: string;
  templateVersion?: string;
  pm?: string;
  install?: boolean;
  git?: boolean;
  yes?: boolean;
  config?: string;
  dryRun?: boolean;
  json?: boolean;
  force?: boolean;
  pack: string[];
}

function oneOf<T extends string>(flag: string, value: string, valid: readonly T[]): T {
  if ((valid as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`Unknown ${flag} '${value}'. ${didYouMean(value, valid)}Valid values: ${valid.join(', ')}.`);
}

/** Turns flags into choices; only what was given on the command line is set. */
export function choicesFromFlags(flags: GenerateFlags): PartialChoices {
  return {
    auth: flags.auth === undefined ? undefined : splitIds(flags.auth),
    oauth: flags.oauth === undefined ? undefined : splitIds(flags.oauth),
    hosted: flags.hosted === undefined ? undefined : splitIds(flags.hosted),
    modules: flags.modules === undefined ? undefined : splitIds(flags.modules),
    toggles: flags.toggles,
    db: flags.db === undefined ? undefined : oneOf<Database>('--db', flags.db, DATABASES),
    templateVersion: flags.templateVersion,
    pm: flags.pm === undefined ? undefined : oneOf<PackageManager>('--pm', flags.pm, PACKAGE_MANAGERS),
    install: flags.install,
    git: flags.git,
  };
}
