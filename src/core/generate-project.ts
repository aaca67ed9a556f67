import type { Choices } from './choices.js';
import { choicesSelecting } from './choosable-modules.js';
import { composeEnv, developmentApiUrl } from './compose-env.js';
import { composeGatekitJson } from './compose-gatekit-json.js';
import { composeMigrations } from './compose-migrations.js';
import { composeOpenApi, listEndpoints } from './compose-openapi.js';
import { composePackageJson } from './compose-package-json.js';
import { composeReadme } from './compose-readme.js';
import { composeSchema } from './compose-schema.js';
import { FileTree } from './file-tree.js';
import type { LoadedModule } from './manifest.js';
import { nextCommands, setupNotes, type NextSteps } from './next-steps.js';
import { packageManagerFiles, packageManagerIgnores } from './package-managers.js';
import { packsUsedBy, type ModuleRegistry } from './registry.js';
import { buildRenderContext } from './render-context.js';
import { renderModule } from './render-module.js';
import { reproduceCommand } from './reproduce-command.js';
import type { ReleaseProfile } from './release-profile.js';
import { resolveSelection } from './resolve-selection.js';

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
  nextSteps: NextSteps;
}

/**
 * Renders a whole project in memory: resolve the selection, render each module's files,
 * then merge package.json, env files, schema, migrations, OpenAPI, README and gatekit.json.
 */
/** The chosen package manager's settings file and .gitignore lines (see package-managers.ts). */
function addPackageManagerFiles(tree: FileTree, pm: Choices['pm'], packageJson: string, release: ReleaseProfile): void {
  const { dependencies = {}, devDependencies = {}, overrides = {} } = JSON.parse(packageJson) as Record<string, Record<string, string> | undefined>;
  const packages = [...Object.keys(dependencies), ...Object.keys(devDependencies)];
  for (const [file, content] of packageManagerFiles(pm, packages, overrides, release.release)) tree.add(file, content, 'core');
  const ignores = packageManagerIgnores(pm);
  if (ignores.length > 0 && tree.has('.gitignore')) tree.appendLines('.gitignore', ignores);
}

export function generateProject(input: GenerateInput): GeneratedProject {
  const { projectName, choices } = input;
  const modules = resolveSelection(choices, input.registry);
  // The registry's release: this one, or an earlier one that `upgrade` renders again as it was.
  const { release } = input.registry;
  const context = buildRenderContext(modules, {
    projectName,
    db: choices.db,
    generatorVersion: release.generatorVersion,
  });
  const tree = new FileTree();
  for (const module of modules) renderModule(module, context, tree);

  const env = composeEnv(modules, choices.db, input.envOverrides);
  const openapi = composeOpenApi(modules, projectName, context);
  const packageJson = composePackageJson(modules, projectName, choices.db, release);
  tree.add('package.json', packageJson, 'core');
  addPackageManagerFiles(tree, choices.pm, packageJson, release);
  tree.add('.env.example', env.example, 'core');
  tree.add('.env', env.dev, 'core');
  tree.add('prisma/schema.prisma', composeSchema(modules, context), 'core');
  for (const [file, sql] of composeMigrations(modules, choices.db, input.now ?? new Date())) {
    tree.add(file, sql, 'core');
  }
  tree.add('src/openapi.json', `${JSON.stringify(openapi, null, 2)}\n`, 'core');

  const packs = packsUsedBy(modules, input.registry);
  const moduleChoices = choicesSelecting(modules, input.registry, choices.templateVersion);
  const command = reproduceCommand(projectName, moduleChoices, choices, packs);
  tree.add('README.md', composeReadme(modules, context, { env: env.variables, endpoints: listEndpoints(openapi), command, pm: choices.pm }), 'core');
  tree.add('gatekit.json', composeGatekitJson({ projectName, choices, moduleChoices, modules, command, packs, tree, generatorVersion: release.generatorVersion }), 'core');

  const steps = {
    commands: nextCommands({ cd: input.directory ?? projectName, pm: choices.pm, installed: choices.install }),
    notes: setupNotes(modules, developmentApiUrl(modules, choices.db, input.envOverrides)),
  };
  return { tree, modules, nextSteps: steps };
}
