#!/usr/bin/env node
// The executable PRISMA_SCHEMA_ENGINE_BINARY names in tests: see ../native-schema-engine.ts.
import { register } from 'tsx/esm/api';

register();
await import('../native-schema-engine.ts');
