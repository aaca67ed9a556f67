import { HOOKS, type Database, type HookName, type ImportRef, type LoadedModule, type OAuthProviderEntry, type RouterRef } from './manifest.js';

/** What every template sees. Kept small on purpose: templates are mostly plain code. */
export interface RenderContext {
  projectName: string;
  db: Database;
  /** Selected module ids, for the rare template that must know: {{#if modules.jwt}}. */
  modules: Record<string, boolean>;
  routers: RouterRef[];
  configs: ImportRef[];
  hooks: Record<HookName, ImportRef[]>;
  providers: {
    methods: string[];
    oauth: { id: string; name: string; requiredEnv: string[]; nameEnv?: string }[];
    hosted: string[];
  };
  /** Each chosen OAuth provider with its setup notes, for the README. */
  oauthSetup: OAuthProviderEntry[];
  userRelations: string[];
  sessionRelations: string[];
  generatorVersion: string;
}

export function buildRenderContext(
  modules: LoadedModule[],
  options: { projectName: string; db: Database; generatorVersion: string },
): RenderContext {
  const manifests = modules.map((module) => module.manifest);
  return {
    projectName: options.projectName,
    db: options.db,
    modules: Object.fromEntries(manifests.map((manifest) => [manifest.id, true])),
    routers: manifests.flatMap((manifest) => manifest.routers),
    configs: manifests.flatMap((manifest) => manifest.config),
    hooks: Object.fromEntries(HOOKS.map((hook) => [hook, manifests.flatMap((manifest) => manifest.hooks[hook] ?? [])])) as Record<HookName, ImportRef[]>,
    providers: {
      methods: manifests.flatMap((manifest) => manifest.providers.methods),
      oauth: manifests.flatMap((manifest) => manifest.providers.oauth.map(({ id, name, requiredEnv, nameEnv }) => ({ id, name, requiredEnv, ...(nameEnv ? { nameEnv } : {}) }))),
      hosted: manifests.flatMap((manifest) => manifest.providers.hosted),
    },
    oauthSetup: manifests.flatMap((manifest) => manifest.providers.oauth),
    userRelations: manifests.flatMap((manifest) => manifest.userRelations),
    sessionRelations: manifests.flatMap((manifest) => manifest.sessionRelations),
    generatorVersion: options.generatorVersion,
  };
}
