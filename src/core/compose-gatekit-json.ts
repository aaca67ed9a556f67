import type { AppMetadata } from './app-metadata.js';
import type { Choices } from './choices.js';
import type { ModuleChoices } from './choosable-modules.js';
import type { FileTree } from './file-tree.js';
import { hashTrackedFiles } from './generated-files.js';
import type { LoadedModule } from './manifest.js';
import type { PackRef } from './packs.js';
import { moduleSummary } from './registry.js';

export interface GatekitJsonInput {
  projectName: string;
  choices: Choices;
  /** The resolved module choices: what `add` generates the app from again. */
  moduleChoices: ModuleChoices;
  modules: LoadedModule[];
  command: string;
  packs: PackRef[];
  /** Every other generated file, for their hashes: composed last. */
  tree: FileTree;
  /** The version the generator records (an earlier release's, when `upgrade` renders it again). */
  generatorVersion: string;
}

/** gatekit.json: what made the app, so `add` can render it again and tell the user's edits from its own output. */
export function composeGatekitJson(input: GatekitJsonInput): string {
  const { choices } = input;
  const metadata: AppMetadata = {
    generator: { name: 'create-gatekit', version: input.generatorVersion },
    projectName: input.projectName,
    templateVersion: choices.templateVersion,
    database: choices.db,
    packageManager: choices.pm,
    choices: input.moduleChoices,
    modules: input.modules.map(moduleSummary),
    command: input.command,
    packs: input.packs,
    files: hashTrackedFiles(input.tree),
  };
  const { packs, ...rest } = metadata;
  return `${JSON.stringify(packs.length > 0 ? metadata : rest, null, 2)}\n`;
}
