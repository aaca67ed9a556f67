import path from 'node:path';
import { z } from 'zod';
import { appFileReader, type AppFileReader } from './app-files.js';
import { PACKAGE_MANAGERS, type Choices } from './choices.js';
import { choicesSelecting } from './choosable-modules.js';
import { UsageError } from './errors.js';
import { DATABASES, formatIssues } from './manifest.js';
import { pathProblem } from './pack-files.js';
import { packageNameProblem } from './project-name.js';
import type { ModuleRegistry } from './registry.js';
import { isTag } from './releases.js';

export const METADATA_FILE = 'gatekit.json';

const packRefSchema = z.object({
  spec: z.string(),
  name: z.string().optional(),
  version: z.string().optional(),
  path: z.string().optional(),
});

const idsSchema = z.array(z.string());

/** A value checked by `problem` (a reason, or undefined when the value is fine), whose message quotes it. */
const checkedString = (problem: (value: string) => string | undefined) =>
  z.string().refine((value) => problem(value) === undefined, { error: (issue) => problem(String(issue.input)) });

/**
 * Each file Gatekit wrote, with its content hash. Every name must stay inside the app: `add` reads
 * these files, and the file may come from anyone (a cloned app).
 */
const fileHashesSchema = z.record(z.string(), z.string()).superRefine((files, context) => {
  for (const file of Object.keys(files)) {
    const problem = pathProblem(file, 'the app');
    if (problem) context.addIssue({ code: 'custom', message: `names '${file}', which ${problem}` });
  }
});

/**
 * gatekit.json as `add` reads it; `files`, `packs`, `projectName` and `choices` are absent in apps
 * made before they existed. It is input like any other file of an app that may come from anyone:
 * values that reach a path, a command printed for the user or a rendered page are checked here.
 */
export const appMetadataSchema = z.object({
  generator: z.object({
    name: z.string(),
    version: checkedString((value) => (/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(value) ? undefined : `'${value}' is not a version (X.Y.Z)`)),
  }),
  projectName: checkedString((value) => packageNameProblem(value)).optional(),
  templateVersion: checkedString((value) => (isTag(value) ? undefined : `'${value}' is not a release (X.Y)`)),
  database: z.enum(DATABASES),
  packageManager: z.enum(PACKAGE_MANAGERS).default('npm'),
  /** The resolved module choices (src/core/choosable-modules.ts), as the app was generated. */
  choices: z
    .object({ auth: idsSchema, oauth: idsSchema, hosted: idsSchema, modules: idsSchema, toggles: z.record(z.string(), z.boolean()) })
    .optional(),
  modules: z.array(z.object({ id: z.string(), category: z.string(), tag: z.string() })),
  command: z.string(),
  packs: z.array(packRefSchema).default([]),
  files: fileHashesSchema.optional(),
});

export type AppMetadata = z.infer<typeof appMetadataSchema>;

/** Reads and checks the app's gatekit.json (exit 2 with the reason when it is not one Gatekit can use). */
export function readAppMetadata(appDir: string, read: AppFileReader = appFileReader(appDir), command: 'add' | 'upgrade' = 'add'): AppMetadata {
  const file = path.join(path.resolve(appDir), METADATA_FILE);
  const text = read(METADATA_FILE);
  if (text === undefined) {
    throw new UsageError(`No ${METADATA_FILE} in ${path.resolve(appDir)}: ${command} works in an app made by create-gatekit. Run it in the app's folder or pass --cwd <app folder>. Nothing was written.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}. Nothing was written.`);
  }
  const parsed = appMetadataSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`${file} is not a Gatekit metadata file (${formatIssues(parsed.error)}). Nothing was written.`);
  }
  return parsed.data;
}

/** The project name the app was generated with (before 4.0 only in its command, after `create-gatekit`). */
export function projectNameOf(metadata: AppMetadata): string {
  if (metadata.projectName) return metadata.projectName;
  const name = metadata.command.split(/\s+/)[2] ?? 'app';
  const problem = packageNameProblem(name);
  if (problem) throw new UsageError(`${METADATA_FILE} is not a Gatekit metadata file (command: the project name ${problem}). Nothing was written.`);
  return name;
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
