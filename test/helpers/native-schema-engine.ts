/**
 * A stand-in for Prisma's native schema engine binary, for `prisma migrate diff` and friends on
 * machines that cannot download it (binaries.prisma.sh is unreachable here; ../../../shared/ENVIRONMENT.md).
 *
 * The Prisma CLI runs the binary named by PRISMA_SCHEMA_ENGINE_BINARY (Prisma's documented override)
 * as `schema-engine --datamodels <file>... --datasource <json>` and talks JSON-RPC 2.0 over stdin and
 * stdout, one message per line. This process answers the same protocol with Prisma's own engine
 * compiled to WebAssembly (`@prisma/schema-engine-wasm`, create-gatekit's devDependency): the same
 * Rust code and method names, reaching the database through Prisma's driver adapters instead of its
 * own drivers. The native engine prints a diff by sending the CLI a `print` request; the WebAssembly
 * one returns the text, which is sent on the same way.
 *
 * Only the test suites use it: `schemaEngineEnv()` (test/helpers/fixtures.ts) points a generated
 * app's `npm run db:migration` at `bin/schema-engine` beside this file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { loadEngineModule } from '../../src/core/engine-module.js';
import { createPgPool, parsePostgresUrl } from '../../src/core/schema-engine.js';

interface Datasource {
  url?: string;
  shadowDatabaseUrl?: string;
}

function parseArgs(argv: string[]) {
  const datamodels: string[] = [];
  let datasource: Datasource = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--datamodels') datamodels.push(argv[++i]!);
    else if (argv[i] === '--datasource') datasource = JSON.parse(argv[++i]!);
  }
  return { datamodels, datasource };
}

/** Migration files hold several statements; a driver's executeRaw prepares one, so scripts run whole. */
function replayingWholeScripts(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (query) => {
    if (query.args.length > 0) return executeRaw(query);
    await adapter.executeScript(query.sql);
    return 0;
  };
  return adapter;
}

function sqliteFactory(url: string | undefined): { factory: SqlMigrationAwareDriverAdapterFactory; close(): void } {
  const scratchDir = mkdtempSync(path.join(tmpdir(), 'schema-engine-shadow-'));
  const main = new PrismaBetterSqlite3({ url: url ?? `file:${path.join(scratchDir, 'main.db')}` });
  const shadow = new PrismaBetterSqlite3({ url: `file:${path.join(scratchDir, 'shadow.db')}` });
  return {
    factory: {
      provider: main.provider,
      adapterName: main.adapterName,
      connect: () => main.connect(),
      connectToShadowDb: async () => replayingWholeScripts(await shadow.connect()),
    },
    close: () => rmSync(scratchDir, { recursive: true, force: true }),
  };
}

function postgresFactory(datasource: Datasource): { factory: SqlMigrationAwareDriverAdapterFactory; close(): Promise<void> } {
  const pools = [datasource.url, datasource.shadowDatabaseUrl].map((url) => (url ? createPgPool(url) : null));
  const adapterFor = (url: string | undefined, pool: ReturnType<typeof createPgPool> | null, role: string) => {
    if (!url || !pool) throw new Error(`This schema engine needs the ${role} URL (prisma.config.ts datasource).`);
    return new PrismaPg(pool, { schema: parsePostgresUrl(url).schema });
  };
  const [mainPool, shadowPool] = pools;
  return {
    factory: {
      provider: 'postgres',
      adapterName: '@prisma/adapter-pg',
      connect: () => adapterFor(datasource.url, mainPool ?? null, 'database').connect(),
      connectToShadowDb: async () => adapterFor(datasource.shadowDatabaseUrl, shadowPool ?? null, 'shadow database').connect(),
    },
    close: async () => {
      await Promise.all(pools.map((pool) => pool?.end()));
    },
  };
}

type Files = [path: string, content: string][];
type Target = { tag?: string; files?: { path: string; content: string }[]; lockfile?: { content?: string | null } };

/**
 * The engine's datamodels: the files the CLI named, else (`migrate diff` names none) the schema a
 * diff's target carries, else a bare datasource for the provider of the migrations' lock file.
 */
function datamodelsFor(named: Files, params: unknown, datasource: Datasource): Files {
  if (named.length > 0) return named;
  const targets = ['from', 'to'].map((side) => (params as Record<string, Target> | undefined)?.[side]);
  const files = targets.flatMap((target) => target?.files ?? []).map((file): [string, string] => [file.path, file.content]);
  if (files.length > 0) return files;
  const lockProvider = targets.map((target) => /provider\s*=\s*"(\w+)"/.exec(target?.lockfile?.content ?? '')?.[1]).find(Boolean);
  const provider = lockProvider ?? (datasource.url?.startsWith('file:') ? 'sqlite' : 'postgresql');
  return [['schema.prisma', `datasource db {\n  provider = "${provider}"\n}\n`]];
}

function providerOf(files: Files): 'sqlite' | 'postgresql' {
  const text = files.map(([, content]) => content).join('\n');
  const provider = /datasource\s+\w+\s*\{[^}]*provider\s*=\s*"(\w+)"/.exec(text)?.[1];
  if (provider === 'sqlite' || provider === 'postgresql') return provider;
  throw new Error(`This schema engine stand-in supports sqlite and postgresql, not ${provider ?? 'an unnamed provider'}.`);
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.includes('--version')) {
    console.log('schema-engine-cli (WebAssembly stand-in)');
    return;
  }
  // The WebAssembly build reports a Rust panic's message here before it throws.
  let panic: string | null = null;
  (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
    set_message: (message: string) => {
      panic = message;
    },
  };
  process.on('uncaughtException', (error) => {
    console.error(`schema engine panic: ${panic ?? error.message}`);
    process.exit(101);
  });
  const { datamodels, datasource } = parseArgs(argv);
  const named: Files = datamodels.map((file) => [file, readFileSync(file, 'utf8')]);
  const bg = await loadEngineModule(createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const opened: { engine?: SchemaEngine; close?: () => void | Promise<void> } = {};
  const open = async (params: unknown) => {
    if (opened.engine) return opened.engine;
    const files = datamodelsFor(named, params, datasource);
    const connection = providerOf(files) === 'sqlite' ? sqliteFactory(datasource.url) : postgresFactory(datasource);
    const engine = await bg.SchemaEngine.new({ datamodels: files }, () => {}, bindMigrationAwareSqlAdapterFactory(connection.factory));
    opened.engine = engine;
    opened.close = connection.close;
    return engine;
  };
  const send = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
  let printId = 1_000_000;

  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line) as { id?: number; method?: string; params?: unknown; result?: unknown };
    if (!request.method) continue; // the CLI's answer to a print request
    try {
      const engine = await open(request.params);
      const method = (engine as unknown as Record<string, (params: unknown) => Promise<Record<string, unknown>>>)[request.method];
      if (typeof method !== 'function') throw new Error(`Unknown method ${request.method}`);
      const result = await method.call(engine, request.params);
      if (request.method === 'diff' && typeof result?.stdout === 'string') {
        send({ jsonrpc: '2.0', id: printId++, method: 'print', params: { content: result.stdout.replace(/\n$/, '') } });
        delete result.stdout;
      }
      send({ jsonrpc: '2.0', id: request.id, result: result ?? {} });
    } catch (error) {
      const message = panic ?? (error as Error).message ?? String(error);
      panic = null;
      const code = (error as { code?: string }).code;
      send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: 4466, message: 'An error happened.', data: { is_panic: false, message, error_code: code, meta: {} } },
      });
    }
  }
  opened.engine?.free();
  await opened.close?.();
}

await main();
