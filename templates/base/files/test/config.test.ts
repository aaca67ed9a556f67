import { describe, expect, it } from 'vitest';
import { JWT_SECRET_PLACEHOLDER } from '../src/config/base-config.js';
import { ConfigError, loadConfig } from '../src/config.js';

const valid = { DATABASE_URL: 'file:./test.db', JWT_SECRET: 'a'.repeat(40) };

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(valid);
    expect(config.PORT).toBe(3000);
    expect(config.JWT_EXPIRES_IN).toBe(7 * 24 * 3600);
    expect(config.APP_URL).toBe('http://localhost:3000');
    expect(config.CORS_ORIGINS).toEqual(['http://localhost:3000']);
    expect(config.RATE_LIMIT_MAX).toBe(10);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ ...valid, JWT_EXPIRES_IN: 'forever' })).toThrow(/JWT_EXPIRES_IN/);
    expect(() => loadConfig({ ...valid, PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('refuses a short or missing JWT_SECRET', () => {
    expect(() => loadConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: valid.DATABASE_URL })).toThrow(/JWT_SECRET/);
  });

  it('refuses the .env.example placeholder in production only', () => {
    expect(() => loadConfig({ ...valid, NODE_ENV: 'production', JWT_SECRET: JWT_SECRET_PLACEHOLDER })).toThrow(/JWT_SECRET/);
    expect(loadConfig({ ...valid, JWT_SECRET: JWT_SECRET_PLACEHOLDER }).JWT_SECRET).toBe(JWT_SECRET_PLACEHOLDER);
  });
});
