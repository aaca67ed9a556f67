import { UsageError } from './errors.js';
import type { LoadedModule } from './manifest.js';
import type { RenderContext } from './render-context.js';
import { renderModuleFile } from './render-module.js';

/**
 * The Prisma schema: the base fragment (generator, datasource, User with every module's
 * back-relations) followed by each module's own models.
 */
export function composeSchema(modules: LoadedModule[], context: RenderContext): string {
  const owners = new Map<string, string>();
  const fragments = modules
    .filter((module) => module.manifest.schema)
    .map((module) => {
      const fragment = renderModuleFile(module, module.manifest.schema!, context).trim();
      for (const [, kind = '', name = ''] of fragment.matchAll(/^\s*(model|enum|view|type)\s+(\w+)\s*\{/gm)) {
        const owner = owners.get(name);
        if (owner) throw new UsageError(`Modules '${owner}' and '${module.manifest.id}' both define the Prisma ${kind} ${name}; choose one of them, or rename it in the pack.`);
        owners.set(name, module.manifest.id);
      }
      return fragment;
    });
  return `${fragments.join('\n\n')}\n`;
}
