import { createHash } from 'node:crypto';
import { MIGRATIONS_DIR } from '../../src/core/compose-migrations.js';
import type { OpenApiDocument } from '../../src/core/compose-openapi.js';
import { fixtureChoices, renderFixture } from '../helpers/fixtures.js';

/**
 * The snapshots of the rendered fixtures, cut so that a template change shows once:
 * - one text per module: every file the module writes and its migrations, each distinct rendering
 *   once (a file that differs only by database has one entry per database, headed with the
 *   fixtures that produce it);
 * - one text per fixture: every path with a short hash and the module that wrote it, so any change
 *   anywhere is one line; then in full the files composed from several modules: those the core
 *   composes (OpenAPI as an outline of its operations) and the module templates that render
 *   differently with other modules chosen (src/app.ts, src/config.ts...).
 */

/** Files larger than this are shown as their size and hash (the common-passwords list). */
const LARGE = 16 * 1024;

/** The .env secrets are random per generation; everything else is deterministic (fixed clock). */
function stable(file: string, content: string): string {
  if (file !== '.env') return content;
  return content.replace(/^JWT_SECRET=.*$/m, 'JWT_SECRET=<random>').replace(/^KEY_ENCRYPTION_KEYS=.*$/m, 'KEY_ENCRYPTION_KEYS=<random>');
}

export function shortHash(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 12);
}

/** `prisma/migrations/20260101000001_jwt/migration.sql` -> module `jwt`, path without the timestamp. */
const MIGRATION = new RegExp(`^${MIGRATIONS_DIR}/\\d{14}_(\\w+)/migration\\.sql$`);

interface RenderedFile {
  fixture: string;
  file: string;
  content: string;
  /** The module whose template wrote it, or 'core' for a file the core composes from several modules. */
  owner: string;
  /** A module file that renders differently with other modules chosen, on the same database. */
  dependsOnSelection: boolean;
}

export interface RenderedFixtures {
  fixtures: Map<string, RenderedFile[]>;
  /** module id -> the fixtures that include it */
  modules: Map<string, string[]>;
}

export function renderAll(names: string[]): RenderedFixtures {
  const fixtures = new Map<string, RenderedFile[]>();
  const modules = new Map<string, string[]>();
  for (const fixture of names) {
    const { tree, modules: chosen } = renderFixture(fixture);
    for (const module of chosen) modules.set(module.manifest.id, [...(modules.get(module.manifest.id) ?? []), fixture]);
    fixtures.set(
      fixture,
      tree.entries().map(([file, content]) => {
        const migration = MIGRATION.exec(file);
        // A migration folder is composed by the core but holds one module's SQL.
        const owner = migration ? migration[1]!.replace(/_/g, '-') : tree.owner(file)!;
        return { fixture, file, content: stable(file, content), owner, dependsOnSelection: false };
      }),
    );
  }
  // Same module, path and database but another rendering: the template composes the selection.
  const seen = new Map<string, { content: string; files: RenderedFile[] }>();
  for (const [fixture, files] of fixtures) {
    const db = fixtureChoices(fixture).db;
    for (const file of files.filter(({ owner }) => owner !== 'core')) {
      const key = `${file.owner}\0${db}\0${file.file.replace(/\/\d{14}_/, '/')}`;
      const entry = seen.get(key) ?? { content: file.content, files: [] };
      entry.files.push(file);
      seen.set(key, entry);
      if (entry.content !== file.content) for (const each of entry.files) each.dependsOnSelection = true;
    }
  }
  for (const entry of seen.values()) {
    if (entry.files.some((file) => file.dependsOnSelection)) for (const file of entry.files) file.dependsOnSelection = true;
  }
  return { fixtures, modules };
}

function shown(content: string): string {
  if (content.length <= LARGE) return content;
  return `<${Buffer.byteLength(content)} bytes, sha256 ${createHash('sha256').update(content).digest('hex')}>\n`;
}

/** A module's files, each distinct rendering once. */
export function moduleSnapshot(rendered: RenderedFixtures, id: string): string {
  const inFixtures = rendered.modules.get(id) ?? [];
  const byPath = new Map<string, Map<string, string[]>>();
  for (const files of rendered.fixtures.values()) {
    for (const { fixture, file, content, owner, dependsOnSelection } of files) {
      if (owner !== id || dependsOnSelection) continue;
      const key = file.replace(/\/\d{14}_/, '/<timestamp>_');
      const renderings = byPath.get(key) ?? new Map<string, string[]>();
      renderings.set(content, [...(renderings.get(content) ?? []), fixture]);
      byPath.set(key, renderings);
    }
  }
  const composed = new Set(
    [...rendered.fixtures.values()].flatMap((files) => files.filter(({ owner, dependsOnSelection }) => owner === id && dependsOnSelection).map(({ file }) => file)),
  );
  const pointers = [...composed].sort().map((file) => `===== ${file} · depends on the other modules chosen: in full in each fixture's snapshot =====\n`);
  const sections = [...byPath.keys()].sort().flatMap((file) => {
    const renderings = byPath.get(file)!;
    return [...renderings].map(([content, fixtures]) => {
      const where = renderings.size > 1 ? ` · in ${fixtures.join(', ')}` : '';
      return `===== ${file} · ${shortHash(content)}${where} =====\n${shown(content)}`;
    });
  });
  const header = `# module ${id}: its files as rendered in the fixtures ${inFixtures.join(', ')}\n`;
  return [header, ...sections, ...pointers].join('\n');
}

/** The operations of the composed OpenAPI document, one line each, and its component names. */
function openApiOutline(content: string): string {
  const document = JSON.parse(content) as OpenApiDocument;
  const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const responses = Object.keys((operation as { responses?: object }).responses ?? {}).join(' ');
      const secured = Array.isArray(operation.security) && operation.security.length > 0 ? ' (auth)' : '';
      return `${method.toUpperCase()} ${route}${secured} -> ${responses}`;
    }),
  );
  const components = Object.entries(document.components).map(([section, entries]) => `${section}: ${Object.keys(entries).join(', ')}`);
  return `${[`openapi ${document.openapi}, ${operations.length} operations`, ...operations, ...components].join('\n')}\n`;
}

/** gatekit.json lists every file's hash; the list below has them all, so it is summarised here. */
function gatekitJsonShown(content: string): string {
  const json = JSON.parse(content) as { files?: Record<string, string> };
  if (json.files) json.files = { [`<${Object.keys(json.files).length} files>`]: 'hashes of the files listed at the top' } as Record<string, string>;
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** A fixture: every path with its hash and writer, then the composed files in full. */
export function fixtureSnapshot(rendered: RenderedFixtures, name: string): string {
  const files = rendered.fixtures.get(name)!;
  const list = files.map(({ file, content, owner }) => `${shortHash(content)}  ${file}  (${owner})`);
  const composed = files
    .filter(({ owner, dependsOnSelection }) => owner === 'core' || dependsOnSelection)
    .map(({ file, content, owner }) => {
      if (file === 'src/openapi.json') return `===== ${file} (outline) =====\n${openApiOutline(content)}`;
      if (file === 'gatekit.json') return `===== ${file} (files summarised) =====\n${gatekitJsonShown(content)}`;
      if (owner !== 'core') return `===== ${file} (${owner}, depends on the other modules chosen) =====\n${content}`;
      return `===== ${file} =====\n${content}`;
    });
  const header = [
    `# fixture ${name}: every file with the first 12 hex digits of its sha256 and the module that wrote it`,
    '# Shown in full below: the files composed from several modules (written by "core", or by a module',
    '# template that depends on the other modules chosen). The other files are in ../modules/<module>.txt.',
    '',
    ...list,
    '',
  ].join('\n');
  return [header, ...composed].join('\n');
}
