import type { Choices } from './choices.js';
import { composeEnv } from './compose-env.js';
import { composeMigrations } from './compose-migrations.js';
import { composeOpenApi, listEndpoints } from './compose-openapi.js';
import { composePackageJson } from './compose-package-json.js';
import { composeSchema } from './compose-schema.js';
import { FileTree } from './file-tree.js';
import { hashTrackedFiles } from './generated-files.js';
import type { LoadedModule } from './manifest.js';
import { packsUsedBy, type ModuleRegistry } from './registry.js';
import { buildRenderContext, type RenderContext } from './render-context.js';
import { renderModule, renderModuleFile } from './render-module.js';
import { reproduceCommand } from './reproduce-command.js';
import { resolveSelection } from './resolve-selection.js';
import { GENERATOR_VERSION } from './version.js';

/** How a package script is run with each package manager: "npm run dev", "pnpm dev". */
function runCommand(pm: Choices['pm']): string {
  return pm === 'npm' || pm === 'bun' ? `${pm} run` : pm;
}

/** Where to create an OAuth provider's credentials, the callback URL to register there, and what to set. */
export function oauthNextStep(provider: RenderContext['oauthSetup'][number]): string {
  const variables = provider.requiredEnv.join(', ');
  const where = provider.setup.console ? `at ${provider.setup.console}` : 'in your identity provider';
  return `${provider.name}: create credentials ${where} with the callback URL http://localhost:3000/api/auth/${provider.id}/callback, then set ${variables} in .env`;
}

export interface GenerateInput {
  projectName: string;
  choices: Choices;
  registry: ModuleRegistry;
  /** Values for the development .env, e.g. DATABASE_URL taken from the environment. */
  envOverrides?: Record<string, string>;
  /** The target directory as the user typed it, for the `cd` step; defaults to the project name. */
  directory?: string;
  /** Fixed clock for reproducible output (migration names). */
  now?: Date;
}

export interface GeneratedProject {
  tree: FileTree;
  modules: LoadedModule[];
  nextSteps: string[];
}

/**
 * Renders a whole project in memory: resolve the selection, render each module's files,
 * then merge package.json, env files, schema, migrations, OpenAPI, README and gatekit.json.
 */
export function generateProject(input: GenerateInput): GeneratedProject {
  const { projectName, choices } = input;
  const modules = resolveSelection(choices, input.registry);
  const context = buildRenderContext(modules, {
    projectName,
    db: choices.db,
    generatorVersion: GENERATOR_VERSION,
  });
  const tree = new FileTree();
  for (const module of modules) renderModule(module, context, tree);

  const env = composeEnv(modules, choices.db, input.envOverrides);
  const openapi = composeOpenApi(modules, projectName, context);
  tree.add('package.json', composePackageJson(modules, projectName, choices.db), 'core');
  tree.add('.env.example', env.example, 'core');
  tree.add('.env', env.dev, 'core');
  tree.add('prisma/schema.prisma', composeSchema(modules, context), 'core');
  for (const [file, sql] of composeMigrations(modules, choices.db, input.now ?? new Date())) {
    tree.add(file, sql, 'core');
  }
  tree.add('src/openapi.json', `${JSON.stringify(openapi, null, 2)}\n`, 'core');

  const packs = packsUsedBy(modules, input.registry);
  const command = reproduceCommand(projectName, choices, modules, input.registry);
  const sections = modules
    .filter((module) => module.manifest.readme && module.manifest.id !== 'base')
    .map((module) => renderModuleFile(module, module.manifest.readme!, context).trim());
  const base = modules.find((module) => module.manifest.id === 'base')!;
  const readme = renderModuleFile(base, base.manifest.readme!, {
    ...context,
    env: env.variables,
    endpoints: listEndpoints(openapi),
    sections,
    command,
    pm: choices.pm,
    pmRun: runCommand(choices.pm),
  });
  tree.add('README.md', `${readme.trim()}\n`, 'core');

  const metadata = {
    generator: { name: 'create-gatekit', version: GENERATOR_VERSION },
    templateVersion: choices.templateVersion,
    database: choices.db,
    packageManager: choices.pm,
    modules: modules.map(({ manifest }) => ({ id: manifest.id, category: manifest.category, tag: manifest.tag })),
    command,
    ...(packs.length > 0 ? { packs } : {}),
    files: hashTrackedFiles(tree),
  };
  tree.add('gatekit.json', `${JSON.stringify(metadata, null, 2)}\n`, 'core');

  const run = runCommand(choices.pm);
  const nextSteps = [
    `cd ${input.directory ?? projectName}`,
    ...(choices.install ? [] : [`${choices.pm} install`, `${run} db:migrate`]),
    ...modules.flatMap((module) => module.manifest.nextSteps),
    ...context.oauthSetup.map(oauthNextStep),
    `${run} dev`,
  ];
  return { tree, modules, nextSteps };
}
