// The schema engine lives in src/ since `create-gatekit pack check` uses it too.
export * from '../../src/core/schema-engine.js';
