import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ManifestError } from './errors.js';
import { checkModuleFolder, pathProblem } from './pack-files.js';
import { isTag } from './releases.js';

export const DATABASES = ['sqlite', 'postgresql', 'mysql'] as const;
export type Database = (typeof DATABASES)[number];

export const CATEGORIES = ['base', 'direct', 'oauth', 'hosted', 'module'] as const;
export type Category = (typeof CATEGORIES)[number];

export const MANIFEST_FILE = 'gatekit.module.json';

/**
 * Account events a module can take part in:
 * - loginChallenges: (ctx, user, pending?) => challenge | undefined, after every first factor, before a token is issued;
 * - revokeAll: (db, userId) => void, when every token of a user is revoked (void the module's one-time secrets);
 * - takeOver: (db, userId, ctx) => void, when the first mailbox proof takes a provisional account over (remove what was set up before);
 * - logout: (db, userId) => void, when the user logs out (end what the module started for the user's sign-ins);
 * - deferredSteps: { kind, run(ctx, user, data) }, work a first factor defers until every challenge is passed
 *   (rendered into src/modules/auth/deferred-steps.ts: a step may revoke every token, which runs the other lists);
 * - signInMethods: (db, userId) => boolean, whether the user can sign in this way (for unlinking the last one);
 * - secondFactors: (db, userId) => string[], further second factors the user has (a passkey), added by completeLogin to the mfa answer's methods;
 * - oauthProviders: the provider descriptions the shared OAuth module serves;
 * - expiredRows: (db, now) => { count }, deletes the module's rows that expired or were used up (tokens, challenges, sessions),
 *   at start-up and every few minutes (src/db/expired-rows.ts);
 * - bearerKeys: (ctx, key) => caller | null | undefined, recognises the module's own API keys for the guard
 *   (null: one of its keys, but not a usable one; undefined: not its key);
 * - events: (db, event, ctx) => void, records an account event inside the transaction of its change (the audit log);
 * - backgroundTasks: (ctx) => { stop() }, work the server runs beside requests (webhook deliveries), stopped at shutdown;
 * - sessionChecks: (db, userId) => void, throws to refuse the user a session (a ban): run by every sign-in, inside the
 *   transaction that starts its session, and by every refresh;
 * - impersonators: (db, sessionId) => { id, email } | null, the admin behind an impersonation session while it may still act;
 * - endCredentials: (db, userId) => void, ends the credentials a module keeps apart from sessions (API keys) when the user
 *   is banned or deleted;
 * - exportSections: (db, userId) => object, the module's part of the account export (never a hash, secret or token);
 * - deleteAccount: (db, userId, ctx, options) => void, removes or refuses what the module holds before the user is deleted
 *   (organizations the user alone owns).
 */
export const HOOKS = [
  'loginChallenges',
  'revokeAll',
  'takeOver',
  'logout',
  'deferredSteps',
  'signInMethods',
  'secondFactors',
  'oauthProviders',
  'expiredRows',
  'bearerKeys',
  'events',
  'backgroundTasks',
  'sessionChecks',
  'impersonators',
  'endCredentials',
  'exportSections',
  'deleteAccount',
] as const;
export type HookName = (typeof HOOKS)[number];

const envVarSchema = z.object({
  name: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'env var names are UPPER_SNAKE_CASE'),
  comment: z.string().min(1),
  /** Value shown in .env.example; an object gives one value per database. */
  example: z.union([z.string(), z.partialRecord(z.enum(DATABASES), z.string())]).default(''),
  /**
   * Value written to the development .env; defaults to the example. "<secret>" writes a fresh
   * random 384-bit value (base64url), "<key-encryption-key>" a fresh KEY_ENCRYPTION_KEYS entry
   * (`k1:` and 256 random bits in base64).
   */
  dev: z.string().optional(),
  /** Only apps on these databases read it (so only theirs list it); every database when absent. */
  databases: z.array(z.enum(DATABASES)).min(1).optional(),
});

/** An OAuth provider as /api/auth/providers, the README and the next steps describe it. */
const oauthProviderSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The provider is configured once every one of these variables is set. */
  requiredEnv: z.array(z.string()).min(1),
  /** Where a developer creates the credentials, and what to do there. */
  setup: z.object({ console: z.url().optional(), steps: z.string().min(1) }),
  /** The provider posts its callback (response_mode=form_post), so the callback also takes POST. */
  formPost: z.boolean().default(false),
  /** A variable whose value, when set, replaces `name` (the generic OIDC provider's OIDC_NAME). */
  nameEnv: z.string().optional(),
});

/**
 * A feature module's own on/off switch: `--<id>` and `--no-<id>` on the command line, `"<id>": true`
 * or `false` in a config file, and a yes/no prompt.
 */
const flagSchema = z.object({
  /** On unless the user turns it off (when the template version offers it). */
  default: z.boolean(),
  /** The question the interactive prompt asks. */
  prompt: z.string().min(1),
});

/** A file or folder of the module, relative to the module folder, which it never leaves. */
const modulePathSchema = z.string().refine((value) => pathProblem(value) === undefined, {
  error: (issue) =>
    `'${String(issue.input)}' ${pathProblem(String(issue.input))}. Valid values: a path inside the module folder, relative, with '/' between folders and no '..' (e.g. 'schema.prisma', 'files')`,
});

const importRefSchema = z.object({
  /** Relative to the generated app's src/: a file of the module's own, never above src/. */
  import: z
    .string()
    .startsWith('./')
    .refine((value) => pathProblem(value) === undefined, "an import is './' and a path under src/, with no '..' (e.g. './modules/acme/acme.routes.js')"),
  name: z.string().regex(/^[A-Za-z_$][\w$]*$/),
});

const routerRefSchema = importRefSchema.extend({
  /**
   * The path all of the router's routes start with, e.g. /api/auth: requests for other paths skip
   * the router at once (src/http/under-path.ts). Without one, every request tries its routes.
   */
  prefix: z
    .string()
    .regex(/^(\/[a-z0-9._-]+)+$/, 'a prefix is a path such as /api/acme: lowercase segments, no trailing slash')
    .optional(),
});

export const manifestSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'ids are lowercase words joined by hyphens'),
  name: z.string().min(1),
  category: z.enum(CATEGORIES),
  tag: z.string().refine(isTag, 'a tag is X.Y, the release that first offered the module'),
  description: z.string().min(1),
  requires: z.array(z.string()).default([]),
  /** npm packages the generated code imports; versions come from the version table unless given as name@range. */
  dependencies: z.array(z.string()).default([]),
  devDependencies: z.array(z.string()).default([]),
  /** Per-database extra packages, e.g. the driver adapter. */
  databaseDependencies: z.partialRecord(z.enum(DATABASES), z.array(z.string())).default({}),
  databaseDevDependencies: z.partialRecord(z.enum(DATABASES), z.array(z.string())).default({}),
  scripts: z.record(z.string(), z.string()).default({}),
  env: z.array(envVarSchema).default([]),
  /** Prisma schema fragment (models of this module), relative to the module folder. */
  schema: modulePathSchema.optional(),
  /** Back-relation fields this module's models need on User, e.g. "passwordCredential PasswordCredential?". */
  userRelations: z.array(z.string()).default([]),
  /**
   * Back-relation fields this module's models need on another module's model, by model name, e.g.
   * { "Organization": ["apiKeys OrganizationApiKey[]"] }; that module's schema renders them.
   */
  modelRelations: z.record(z.string().regex(/^[A-Z][A-Za-z0-9]*$/), z.array(z.string())).default({}),
  /** Back-relation fields this module's models need on Session, e.g. "impersonation Impersonation? @relation(\"ImpersonationSession\")". */
  sessionRelations: z.array(z.string()).default([]),
  /** Folder with one <database>.sql migration per supported database. */
  migrations: modulePathSchema.optional(),
  /**
   * Data steps `upgrade` runs for this module when it brings an app to a release, by release: a
   * folder with one <database>.sql each, appended to the upgrade's migration after the schema
   * change (docs/upgrade.md), e.g. { "4.1": "upgrades/4.1" }.
   */
  upgrades: z.record(z.string().refine(isTag, 'a release is X.Y'), modulePathSchema).default({}),
  openapi: modulePathSchema.optional(),
  readme: modulePathSchema.optional(),
  /** Route factories mounted by createApp, in order: (ctx) => Router. */
  routers: z.array(routerRefSchema).default([]),
  /** A building block other modules require (the OAuth machinery): never chosen or listed on its own. */
  internal: z.boolean().default(false),
  /**
   * An internal module that joins the selection by itself whenever every one of these modules is
   * chosen (organization API keys, with api-keys and orgs). It usually requires them too.
   */
  selectedWith: z.array(z.string()).default([]),
  /** A feature module (category module) chosen by its own flag: --orgs / --no-orgs. */
  flag: flagSchema.optional(),
  /** A second factor (TOTP): it cannot be the only way to sign in. */
  secondFactorOnly: z.boolean().default(false),
  /** Signs in accounts another module creates (passkeys are added to an account): never the only method. */
  existingAccountsOnly: z.boolean().default(false),
  /**
   * Functions the app calls at account events, by event (see HOOKS). Each list is rendered into
   * src/modules/auth/account-hooks.ts in module order (deferredSteps into deferred-steps.ts,
   * oauthProviders into provider-list.ts, expiredRows into src/db/expired-rows.ts). A hook's file
   * takes its types from account-events.ts and never imports a list back.
   */
  hooks: z.partialRecord(z.enum(HOOKS), z.array(importRefSchema)).default({}),
  /**
   * The actions this module's code records as events (auth.signed_in, api_key.created…): the one
   * place a module declares them. The audit module lists every chosen module's actions.
   */
  events: z.array(z.string().regex(/^[a-z][a-z_]*\.[a-z][a-z_]*$/, 'an event action is area.what_happened, e.g. api_key.created')).default([]),
  /** Zod object shapes merged into the app's config schema. */
  config: z.array(importRefSchema).default([]),
  /** (config, ctx) => void: checks of variables against each other (https only in production), run by the config schema's superRefine. */
  configChecks: z.array(importRefSchema).default([]),
  /** Entries for GET /api/auth/providers. */
  providers: z
    .object({
      methods: z.array(z.string()).default([]),
      oauth: z.array(oauthProviderSchema).default([]),
      hosted: z.array(z.string()).default([]),
    })
    .default({ methods: [], oauth: [], hosted: [] }),
  /** Templates rendered into the project. files/ always, files.<database>/ only for that database. */
  files: modulePathSchema.default('files'),
  /**
   * Folders rendered only when another module is chosen too, by that module's id (a page per
   * feature), or by several ids joined by `+` when the files need all of them (`passkey+totp`).
   */
  filesWith: z.record(z.string(), modulePathSchema).default({}),
  nextSteps: z.array(z.string()).default([]),
});

export type ModuleManifest = z.infer<typeof manifestSchema>;
export type ModuleFlag = z.infer<typeof flagSchema>;
export type EnvVar = z.infer<typeof envVarSchema>;
export type ImportRef = z.infer<typeof importRefSchema>;
export type RouterRef = z.infer<typeof routerRefSchema>;
export type OAuthProviderEntry = z.infer<typeof oauthProviderSchema>;

export interface LoadedModule {
  manifest: ModuleManifest;
  /** Absolute folder of the module. */
  dir: string;
  /** Where the module came from: "built-in" or the pack path. */
  source: string;
}

/** A zod error on one line: each problem as `path: message` (a problem of the whole object: its message). */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

/**
 * Reads and validates one module folder. The folder holds only plain files and folders (no
 * symbolic link, nothing git would read), every path the manifest names stays inside it, and
 * every referenced file exists.
 */
export function loadModule(dir: string, source: string, options: { builtIn?: boolean } = {}): LoadedModule {
  const file = path.join(dir, MANIFEST_FILE);
  // The built-in modules ship inside create-gatekit (a unit test checks their folders the same
  // way); walking them at every start would only slow it down.
  if (!options.builtIn) {
    if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new ManifestError(`Invalid pack: ${dir} is a symbolic link. A pack may not hold symbolic links: put the module folder itself in the pack.`);
    }
    checkModuleFolder(dir);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ManifestError(`Cannot read module manifest ${file}: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ManifestError(`Invalid module manifest ${file}: ${formatIssues(parsed.error)}`);
  }
  const manifest = parsed.data;
  if (manifest.flag && (manifest.category !== 'module' || manifest.internal)) {
    throw new ManifestError(`Invalid module manifest ${file}: flag: only a feature module (category module, not internal) has its own flag.`);
  }
  if (manifest.selectedWith.length > 0 && !manifest.internal) {
    throw new ManifestError(`Invalid module manifest ${file}: selectedWith: only an internal module (never chosen on its own) joins the selection by itself.`);
  }
  for (const relative of [manifest.schema, manifest.openapi, manifest.readme, manifest.migrations, ...Object.values(manifest.filesWith), ...Object.values(manifest.upgrades)]) {
    if (relative && !existsSync(path.join(dir, relative))) {
      throw new ManifestError(`Module '${manifest.id}' (${file}) names '${relative}', which does not exist.`);
    }
  }
  return { manifest, dir, source };
}
