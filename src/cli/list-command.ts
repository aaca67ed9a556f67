import { choosableModules } from '../core/choosable-modules.js';
import type { ModuleRegistry } from '../core/registry.js';
import { compareTags, CURRENT_RELEASE } from '../core/releases.js';
import { CATEGORIES } from '../core/manifest.js';
import { checkTemplateVersion } from '../core/resolve-selection.js';
import type { Reporter } from './reporter.js';

export interface ListFlags {
  json?: boolean;
  templateVersion?: string;
}

/** Every selectable module (not the always-present base, nor internal building blocks) with its category and tag. */
export function listModules(registry: ModuleRegistry, templateVersion: string = CURRENT_RELEASE) {
  checkTemplateVersion(templateVersion);
  return choosableModules(registry, { templateVersion })
    .sort(
      (a, b) =>
        CATEGORIES.indexOf(a.manifest.category) - CATEGORIES.indexOf(b.manifest.category) ||
        compareTags(a.manifest.tag, b.manifest.tag) ||
        a.manifest.id.localeCompare(b.manifest.id),
    )
    .map(({ manifest, source }) => ({
      id: manifest.id,
      category: manifest.category,
      tag: manifest.tag,
      name: manifest.name,
      description: manifest.description,
      source,
    }));
}

export function runList(registry: ModuleRegistry, flags: ListFlags, reporter: Reporter): void {
  const rows = listModules(registry, flags.templateVersion);
  if (flags.json) {
    reporter.json({ templateVersion: flags.templateVersion ?? CURRENT_RELEASE, modules: rows });
    return;
  }
  const header = ['id', 'category', 'tag', 'what'];
  const table = [header, ...rows.map((row) => [row.id, row.category, row.tag, row.description])];
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  for (const row of table) {
    reporter.result(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
  }
}
