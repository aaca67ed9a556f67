import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PACKAGE_MANAGERS, type Choices } from './choices.js';
import { UsageError } from './errors.js';
import { DATABASES } from './manifest.js';
import type { ModuleRegistry } from './registry.js';

export const METADATA_FILE = 'gatekit.json';

const packRefSchema = z.object({
  spec: z.string(),
  name: z.string().optional(),
  version: z.string().optional(),
  path: z.string().optional(),
});

/** gatekit.json as `add` reads it; `files` and `packs` are absent in apps made before they existed. */
export const appMetadataSchema = z.object({
  generator: z.object({ name: z.string(), version: z.string() }),
  templateVersion: z.string(),
  database: z.enum(DATABASES),
  packageManager: z.enum(PACKAGE_MANAGERS).default('npm'),
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
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new UsageError(`${file} is not a Gatekit metadata file (${problems}).`);
  }
  return parsed.data;
}

/** The project name the app was generated with: the word after `create-gatekit` in its command. */
export function projectNameOf(metadata: AppMetadata): string {
  return metadata.command.split(/\s+/)[2] ?? 'app';
}

/**
 * The choices that generate the app as recorded: every chosen module by category, each feature
 * module with its own flag switched on or off explicitly (so a later default does not change it).
 */
export function choicesOf(metadata: AppMetadata, registry: ModuleRegistry): Choices {
  const ids = new Set(metadata.modules.map((module) => module.id));
  const chosen = (category: string) =>
    [...ids].filter((id) => {
      const module = registry.modules.get(id);
      return module && module.manifest.category === category && !module.manifest.internal;
    });
  const unknown = [...ids].filter((id) => !registry.modules.has(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `The app uses module(s) ${unknown.join(', ')}, which no loaded pack provides. Pass the pack that has them with --pack <folder or package>.`,
    );
  }
  const features = chosen('module');
  const toggles: Record<string, boolean> = {};
  for (const module of registry.modules.values()) {
    if (module.manifest.flag) toggles[module.manifest.id] = ids.has(module.manifest.id);
  }
  return {
    auth: chosen('direct'),
    oauth: chosen('oauth'),
    hosted: chosen('hosted'),
    modules: features.filter((id) => !registry.modules.get(id)!.manifest.flag),
    toggles,
    db: metadata.database,
    templateVersion: metadata.templateVersion,
    pm: metadata.packageManager,
    install: false,
    git: false,
  };
}
