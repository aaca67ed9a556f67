import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The JS glue of Prisma's WebAssembly schema engine (`@prisma/schema-engine-wasm/schema_engine_bg`). */
export type EngineModule = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

const instances = new Map<string, Promise<EngineModule>>();

/**
 * Loads the engine's JS glue from `glueFile` and instantiates the .wasm beside it ourselves: the
 * package's own entry point imports the .wasm as an ES module, which Node 20 only allows behind
 * --experimental-wasm-modules. Once per glue file: the glue holds one instance.
 */
export function loadEngineModule(glueFile: string): Promise<EngineModule> {
  let instance = instances.get(glueFile);
  if (!instance) {
    instance = (async () => {
      const bg = (await import(pathToFileURL(glueFile).href)) as EngineModule;
      const { instance: wasm } = await WebAssembly.instantiate(readFileSync(path.join(path.dirname(glueFile), 'schema_engine_bg.wasm')), {
        './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
      });
      bg.__wbg_set_wasm(wasm.exports);
      (wasm.exports as { __wbindgen_start: () => void }).__wbindgen_start();
      return bg;
    })();
    instances.set(glueFile, instance);
  }
  return instance;
}
