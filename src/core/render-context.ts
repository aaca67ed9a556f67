import { HOOKS, type Database, type HookName, type ImportRef, type LoadedModule, type OAuthProviderEntry, type RouterRef } from './manifest.js';

/** What every template sees. Kept small on purpose: templates are mostly plain code. */
export interface RenderContext {
  projectName: string;
  db: Database;
  /** Selected module ids, for the rare template that must know: {{#if modules.jwt}}. */
  modules: Record<string, boolean>;
  routers: RouterRef[];
  configs: ImportRef[];
  configChecks: ImportRef[];
  /** What src/config.ts imports for configs and configChecks: each file once. */
  configImports: { import: string; names: string[] }[];
  hooks: Record<HookName, ImportRef[]>;
  /**
   * What src/modules/auth/account-hooks.ts imports for its lists: each file once, with every name
   * it gives (a function may serve two events: a module's key removal on a take-over and on a ban).
   */
  accountHookImports: { import: string; names: string[] }[];
  providers: {
    methods: string[];
    oauth: { id: string; name: string; requiredEnv: string[]; nameEnv?: string }[];
    hosted: string[];
  };
  /** Each chosen OAuth provider with its setup notes, for the README. */
  oauthSetup: OAuthProviderEntry[];
  userRelations: string[];
  /** Every event action the chosen modules declare, in module order. */
  events: string[];
  /** Back-relation fields on other modules' models, by model name ({{#each modelRelations.Organization}}). */
  modelRelations: Record<string, string[]>;
  sessionRelations: string[];
  generatorVersion: string;
}

/** The hook lists account-hooks.ts holds; the others are rendered into files of their own. */
const ACCOUNT_HOOKS: HookName[] = [
  'loginChallenges',
  'revokeAll',
  'takeOver',
  'logout',
  'signInMethods',
  'secondFactors',
  'bearerKeys',
  'events',
  'sessionChecks',
  'impersonators',
  'endCredentials',
  'exportSections',
  'deleteAccount',
];

/** The imports of some hook lists, grouped by file, each name once, in the order they come. */
function importsOf(refs: ImportRef[]): { import: string; names: string[] }[] {
  const byFile = new Map<string, string[]>();
  for (const ref of refs) {
    const names = byFile.get(ref.import) ?? [];
    if (!names.includes(ref.name)) names.push(ref.name);
    byFile.set(ref.import, names);
  }
  return [...byFile].map(([file, names]) => ({ import: file, names }));
}

export function buildRenderContext(
  modules: LoadedModule[],
  options: { projectName: string; db: Database; generatorVersion: string },
): RenderContext {
  const manifests = modules.map((module) => module.manifest);
  const hooks = Object.fromEntries(HOOKS.map((hook) => [hook, manifests.flatMap((manifest) => manifest.hooks[hook] ?? [])])) as Record<HookName, ImportRef[]>;
  return {
    projectName: options.projectName,
    db: options.db,
    modules: Object.fromEntries(manifests.map((manifest) => [manifest.id, true])),
    routers: manifests.flatMap((manifest) => manifest.routers),
    configs: manifests.flatMap((manifest) => manifest.config),
    configChecks: manifests.flatMap((manifest) => manifest.configChecks),
    configImports: importsOf(manifests.flatMap((manifest) => [...manifest.config, ...manifest.configChecks])),
    hooks,
    accountHookImports: importsOf(ACCOUNT_HOOKS.flatMap((hook) => hooks[hook])),
    providers: {
      methods: manifests.flatMap((manifest) => manifest.providers.methods),
      oauth: manifests.flatMap((manifest) => manifest.providers.oauth.map(({ id, name, requiredEnv, nameEnv }) => ({ id, name, requiredEnv, ...(nameEnv ? { nameEnv } : {}) }))),
      hosted: manifests.flatMap((manifest) => manifest.providers.hosted),
    },
    oauthSetup: manifests.flatMap((manifest) => manifest.providers.oauth),
    userRelations: manifests.flatMap((manifest) => manifest.userRelations),
    events: manifests.flatMap((manifest) => manifest.events),
    modelRelations: manifests.reduce<Record<string, string[]>>((all, manifest) => {
      for (const [model, fields] of Object.entries(manifest.modelRelations)) all[model] = [...(all[model] ?? []), ...fields];
      return all;
    }, {}),
    sessionRelations: manifests.flatMap((manifest) => manifest.sessionRelations),
    generatorVersion: options.generatorVersion,
  };
}
