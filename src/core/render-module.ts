import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileTree } from './file-tree.js';
import { renderTemplate } from './handlebars.js';
import type { LoadedModule } from './manifest.js';
import type { RenderContext } from './render-context.js';

/** npm drops dotfiles such as .gitignore from published packages, so templates store them as _name. */
const DOTFILE_PREFIX = '_';

function listFiles(root: string, relative = ''): string[] {
  return readdirSync(path.join(root, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(root, child) : [child];
  });
}

function outputPath(templatePath: string): string {
  const parts = templatePath.replace(/\.hbs$/, '').split('/');
  const name = parts.pop()!;
  parts.push(name.startsWith(DOTFILE_PREFIX) ? `.${name.slice(DOTFILE_PREFIX.length)}` : name);
  return parts.join('/');
}

/**
 * Renders a module's files/ and files.<database>/ folders into the tree, and each of its filesWith
 * folders whose module is chosen too.
 */
export function renderModule(module: LoadedModule, context: RenderContext, tree: FileTree): void {
  const { files, filesWith } = module.manifest;
  const alongside = Object.entries(filesWith).filter(([id]) => context.modules[id]);
  const folders = [files, `${files}.${context.db}`, ...alongside.map(([, folder]) => folder)];
  for (const folder of folders) {
    const root = path.join(module.dir, folder);
    if (!existsSync(root)) continue;
    for (const file of listFiles(root)) {
      const source = readFileSync(path.join(root, file), 'utf8');
      const content = file.endsWith('.hbs') ? renderTemplate(source, context, path.join(root, file)) : source;
      tree.add(outputPath(file), content, module.manifest.id);
    }
  }
}

/** Reads and renders one template file of a module (schema fragment, README section); `raw` reads it as it is. */
export function renderModuleFile(module: LoadedModule, relative: string, context: object, raw = false): string {
  const file = path.join(module.dir, relative);
  const source = readFileSync(file, 'utf8');
  return raw ? source : renderTemplate(source, context, file);
}
