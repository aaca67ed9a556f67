import path from 'node:path';
import ts from 'typescript';

/**
 * The import graph of a generated app's TypeScript files, from their text alone (no install).
 *
 * Every relative specifier counts, `import type` and `export … from` included (a circle of types
 * tangles the structure as much as one of values), and so does `import('./x.js')` (a lazy import
 * is still a dependency). A `.js` specifier names the `.ts` file beside it, as NodeNext resolves
 * it; a specifier that names no file of the tree (the generated Prisma client, JSON) is left out.
 */
export type ImportGraph = Map<string, string[]>;

export function importGraph(files: Iterable<[string, string]>, roots = ['src/', 'test/']): ImportGraph {
  const sources = new Map([...files].filter(([file]) => file.endsWith('.ts') && roots.some((root) => file.startsWith(root))));
  const graph: ImportGraph = new Map();
  for (const [file, content] of sources) {
    const { importedFiles } = ts.preProcessFile(content, true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts'))
      .filter((target) => sources.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself): Tarjan's algorithm. */
export function tangles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One shortest circle through `start` inside its component: `a -> b -> … -> a`. */
export function circleThrough(graph: ImportGraph, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (target === start) {
        const circle = [start];
        for (let step: string | undefined = file; step !== start && step !== undefined; step = cameFrom.get(step))
          circle.splice(1, 0, step);
        return [...circle, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [];
}

/**
 * The layers of a generated app, bottom to top (docs/architecture.md, "Layers"). An import goes
 * down or stays in its layer; one that goes up is reported.
 * - config: src/config.ts and everything it imports: the config helpers and each module's fragment;
 * - shared: the rest of src/ outside src/modules/ (context, logger, http, mail, db, redis);
 * - modules: src/modules/, the lists of hooks and providers included (their order is the circle check's);
 * - app: what puts the app together from the modules: src/app.ts, src/server.ts, src/background-tasks.ts, src/db/expired-rows.ts;
 * - tests: test/.
 */
export const LAYERS = ['config', 'shared', 'modules', 'app', 'tests'] as const;
export type Layer = (typeof LAYERS)[number];

const APP_FILES = new Set(['src/app.ts', 'src/server.ts', 'src/background-tasks.ts', 'src/db/expired-rows.ts']);

export function layersOf(graph: ImportGraph): Map<string, Layer> {
  const config = new Set<string>();
  const reach = (file: string) => {
    if (config.has(file) || !graph.has(file)) return;
    config.add(file);
    for (const target of graph.get(file)!) reach(target);
  };
  reach('src/config.ts');
  const layer = (file: string): Layer => {
    if (file.startsWith('test/')) return 'tests';
    if (APP_FILES.has(file)) return 'app';
    if (config.has(file)) return 'config';
    if (file.startsWith('src/modules/')) return 'modules';
    return 'shared';
  };
  return new Map([...graph.keys()].map((file) => [file, layer(file)]));
}

/** Imports from a lower layer up to a higher one: `from (layer) -> to (layer)`. */
export function upwardImports(graph: ImportGraph): string[] {
  const layers = layersOf(graph);
  const rank = (file: string) => LAYERS.indexOf(layers.get(file)!);
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (rank(target) > rank(file)) found.push(`${file} (${layers.get(file)}) -> ${target} (${layers.get(target)})`);
    }
  }
  return found.sort();
}
