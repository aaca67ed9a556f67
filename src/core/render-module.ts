import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ManifestError } from './errors.js';
import type { FileTree } from './file-tree.js';
import { renderTemplate } from './handlebars.js';
import type { LoadedModule } from './manifest.js';
import { outputFileName, outputFolderName } from './pack-files.js';
import type { RenderContext } from './render-context.js';

/** Every plain file under a module folder (loading the module refused links and anything else). */
function listFiles(root: string, relative = ''): string[] {
  return readdirSync(path.join(root, relative), { withFileTypes: true }).flatMap((entry) => {
    const child = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return listFiles(root, child);
    if (!entry.isFile()) throw new ManifestError(`Invalid pack: ${path.join(root, child)} is not a plain file. A pack holds only files and folders.`);
    return [child];
  });
}

/** Where a template lands: each folder and the file may start with `_` for a dot (`_github/` is `.github/`). */
function outputPath(templatePath: string): string {
  const parts = templatePath.split('/');
  const file = outputFileName(parts.pop()!);
  return [...parts.map(outputFolderName), file].join('/');
}

/** Reads and renders one file of a module; a template that does not compile names its file. */
function render(file: string, context: object, template: boolean): string {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ManifestError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  if (!template) return source;
  try {
    return renderTemplate(source, context, file);
  } catch (error) {
    throw new ManifestError(`Invalid template ${file}: ${(error as Error).message}`);
  }
}

/**
 * Renders a module's files/ and files.<database>/ folders into the tree, and each of its filesWith
 * folders whose modules are chosen too: a key names one module (`totp`), or several joined by `+`
 * (`passkey+totp`), all of which must be chosen.
 */
export function renderModule(module: LoadedModule, context: RenderContext, tree: FileTree): void {
  const { files, filesWith } = module.manifest;
  const alongside = Object.entries(filesWith).filter(([key]) => key.split('+').every((id) => context.modules[id]));
  const folders = [files, `${files}.${context.db}`, ...alongside.map(([, folder]) => folder)];
  for (const folder of folders) {
    const root = path.join(module.dir, folder);
    if (!existsSync(root)) continue;
    for (const file of listFiles(root)) {
      tree.add(outputPath(file), render(path.join(root, file), context, file.endsWith('.hbs')), module.manifest.id);
    }
  }
}

/** Reads and renders one template file of a module (schema fragment, README section); `raw` reads it as it is. */
export function renderModuleFile(module: LoadedModule, relative: string, context: object, raw = false): string {
  return render(path.join(module.dir, relative), context, !raw);
}
