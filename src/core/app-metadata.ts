import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PACKAGE_MANAGERS, type Choices } from './choices.js';
import { choicesSelecting } from './choosable-modules.js';
import { UsageError } from './errors.js';
import { DATABASES, formatIssues } from './manifest.js';
import type { ModuleRegistry } from './registry.js';

export const METADATA_FILE = 'gatekit.json';

const packRefSchema = z.object({
  spec: z.string(),
  name: z.string().optional(),
  version: z.string().optional(),
  path: z.string().optional(),
});

const idsSchema = z.array(z.string());

/**
 * gatekit.json as `add` reads it; `files`, `packs`, `projectName` and `choices` are absent in apps
 * made before they existed.
 */
export const appMetadataSchema = z.object({
  generator: z.object({ name: z.string(), version: z.string() }),
  projectName: z.string().optional(),
  templateVersion: z.string(),
  database: z.enum(DATABASES),
  packageManager: z.enum(PACKAGE_MANAGERS).default('npm'),
  /** The resolved module choices (src/core/choosable-modules.ts), as the app was generated. */
  choices: z
    .object({ auth: idsSchema, oauth: idsSchema, hosted: idsSchema, modules: idsSchema, toggles: z.record(z.string(), z.boolean()) })
    .optional(),
  modules: z.array(z.object({ id: z.string(), category: z.string(), tag: z.string() })),
  command: z.string(),
  packs: z.array(packRefSchema).default([]),
  files: z.record(z.string(), z.string()).optional(),
});

export type AppMetadata = z.infer<typeof appMetadataSchema>;

export function readAppMetadata(appDir: string): AppMetadata {
  const file = path.join(appDir, METADATA_FILE);
  if (!existsSync(file)) {
    throw new UsageError(`No ${METADATA_FILE} in ${path.resolve(appDir)}: add works in an app made by create-gatekit. Run it in the app's folder or pass --cwd <app folder>.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}.`);
  }
  const parsed = appMetadataSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`${file} is not a Gatekit metadata file (${formatIssues(parsed.error)}).`);
  }
  return parsed.data;
}

/** The project name the app was generated with (before 4.0 only in its command, after `create-gatekit`). */
export function projectNameOf(metadata: AppMetadata): string {
  return metadata.projectName ?? metadata.command.split(/\s+/)[2] ?? 'app';
}

/**
 * The choices that generate the app as recorded. An app made before gatekit.json recorded them
 * gets them from its list of modules: each chosen module in its category, each feature module with
 * its own flag switched on or off explicitly (so a later default does not change it).
 */
export function choicesOf(metadata: AppMetadata, registry: ModuleRegistry): Choices {
  const unknown = metadata.modules.map((module) => module.id).filter((id) => !registry.modules.has(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `The app uses module(s) ${unknown.join(', ')}, which no loaded pack provides. Pass the pack that has them with --pack <folder or package>.`,
    );
  }
  const modules = metadata.modules.map((module) => registry.modules.get(module.id)!);
  return {
    ...(metadata.choices ?? choicesSelecting(modules, registry, metadata.templateVersion)),
    db: metadata.database,
    templateVersion: metadata.templateVersion,
    pm: metadata.packageManager,
    install: false,
    git: false,
  };
}
