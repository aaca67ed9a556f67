import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedModule } from './manifest.js';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, { summary?: string; security?: unknown[] }>>;
  components: Record<string, Json>;
  [key: string]: unknown;
}

function readFragment(module: LoadedModule): Json {
  return JSON.parse(readFileSync(path.join(module.dir, module.manifest.openapi!), 'utf8')) as Json;
}

/** Merges every module's OpenAPI fragment: paths by path and method, components by name. */
export function composeOpenApi(modules: LoadedModule[], projectName: string): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: projectName, version: '0.1.0' },
    paths: {},
    components: {},
  };
  for (const module of modules.filter((candidate) => candidate.manifest.openapi)) {
    const fragment = readFragment(module);
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
