import type { LoadedModule } from './manifest.js';
import { renderModuleFile } from './render-module.js';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, { summary?: string; security?: unknown[] }>>;
  components: Record<string, Json>;
  [key: string]: unknown;
}

/** A module's fragment: JSON, or a Handlebars template of JSON (paths per chosen provider, say). */
function readFragment(module: LoadedModule, context: object): Json {
  const file = module.manifest.openapi!;
  const text = renderModuleFile(module, file, file.endsWith('.hbs') ? context : {}, !file.endsWith('.hbs'));
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    throw new Error(`The OpenAPI fragment ${file} of module '${module.manifest.id}' is not valid JSON once rendered: ${(error as Error).message}`);
  }
}

/** Merges every module's OpenAPI fragment: paths by path and method, components by name. */
export function composeOpenApi(modules: LoadedModule[], projectName: string, context: object = {}): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: projectName, version: '0.1.0' },
    paths: {},
    components: {},
  };
  for (const module of modules.filter((candidate) => candidate.manifest.openapi)) {
    const fragment = readFragment(module, context);
    for (const [route, operations] of Object.entries((fragment.paths ?? {}) as OpenApiDocument['paths'])) {
      document.paths[route] = { ...document.paths[route], ...operations };
    }
    for (const [section, entries] of Object.entries((fragment.components ?? {}) as Record<string, Json>)) {
      document.components[section] = { ...document.components[section], ...entries };
    }
    for (const [key, value] of Object.entries(fragment)) {
      if (key !== 'paths' && key !== 'components') document[key] = value;
    }
  }
  document.info = { ...document.info, title: projectName };
  return document;
}

export interface Endpoint {
  method: string;
  path: string;
  summary: string;
  auth: boolean;
}

/** The route table (for the README) read back from the document, so the two never disagree. */
export function listEndpoints(document: OpenApiDocument): Endpoint[] {
  return Object.entries(document.paths).flatMap(([route, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: route.replace(/\{(\w+)\}/g, ':$1'),
      summary: operation.summary ?? '',
      auth: Array.isArray(operation.security) && operation.security.length > 0,
    })),
  );
}
