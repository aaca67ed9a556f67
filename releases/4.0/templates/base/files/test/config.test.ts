import { describe, expect, it } from 'vitest';
import { JWT_SECRET_PLACEHOLDER } from '../src/config/base-config.js';
import { ConfigError, loadConfig } from '../src/config.js';

const valid = { DATABASE_URL: 'file:./test.db', JWT_SECRET: 'a'.repeat(40) };

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(valid);
    expect(config.PORT).toBe(3000);
    expect(config.JWT_EXPIRES_IN).toBe(15 * 60);
    expect(config.SESSION_IDLE_DAYS).toBe(30);
    expect(config.SESSION_MAX_DAYS).toBe(90);
    expect(config.REFRESH_REUSE_GRACE_SECONDS).toBe(10);
    expect(config.APP_URL).toBe('http://localhost:3000');
    expect(config.CORS_ORIGINS).toEqual(['http://localhost:3000']);
    expect(config.RATE_LIMIT_MAX).toBe(10);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ ...valid, JWT_EXPIRES_IN: 'forever' })).toThrow(/JWT_EXPIRES_IN/);
    expect(() => loadConfig({ ...valid, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ ...valid, SESSION_IDLE_DAYS: '0' })).toThrow(/SESSION_IDLE_DAYS/);
    expect(() => loadConfig({ ...valid, SESSION_MAX_DAYS: 'soon' })).toThrow(/SESSION_MAX_DAYS/);
    expect(() => loadConfig({ ...valid, REFRESH_REUSE_GRACE_SECONDS: '-1' })).toThrow(/REFRESH_REUSE_GRACE_SECONDS/);
  });

  it('says what a missing JWT_SECRET needs and how to make one, not a schema library\'s wording', () => {
    expect(() => loadConfig({ DATABASE_URL: valid.DATABASE_URL })).toThrow(
      /JWT_SECRET is required: a random string of at least 32 characters; generate one with: node -e/,
    );
    expect(() => loadConfig({ DATABASE_URL: valid.DATABASE_URL })).not.toThrow(/expected|received|undefined/);
    expect(() => loadConfig({ ...valid, JWT_SECRET: '' })).toThrow(/JWT_SECRET is required/);
    expect(() => loadConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET must be at least 32 characters; generate one with/);
    // A secret's value is never repeated in the message.
    expect(() => loadConfig({ ...valid, JWT_SECRET: 'short' })).not.toThrow(/short"/);
  });

  it('says what a bad PORT must be, quoting what it got', () => {
    expect(() => loadConfig({ ...valid, PORT: 'abc' })).toThrow('PORT must be a whole number from 1 to 65535 (got "abc")');
    expect(() => loadConfig({ ...valid, PORT: 'abc' })).not.toThrow(/NaN|expected/);
    expect(() => loadConfig({ ...valid, PORT: '70000' })).toThrow('PORT must be a whole number from 1 to 65535 (got "70000")');
    expect(() => loadConfig({ ...valid, PORT: '80.5' })).toThrow(/PORT must be a whole number/);
    expect(loadConfig({ ...valid, PORT: '8080' }).PORT).toBe(8080);
    expect(() => loadConfig({ ...valid, RATE_LIMIT_MAX: '-1' })).toThrow('RATE_LIMIT_MAX must be a whole number of at least 0 (got "-1")');
  });

  it('never repeats the password of a malformed URL it quotes', () => {
    const attempt = () => loadConfig({ ...valid, REDIS_URL: 'redis//default:hunter2@cache:6379' });
    expect(attempt).toThrow(/REDIS_URL/);
    expect(attempt).toThrow(/default:\*\*\*\*@cache/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('says DATABASE_URL is required when it is missing', () => {
    expect(() => loadConfig({ JWT_SECRET: valid.JWT_SECRET })).toThrow(/DATABASE_URL is required/);
  });

  it('refuses a short or missing JWT_SECRET', () => {
    expect(() => loadConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: valid.DATABASE_URL })).toThrow(/JWT_SECRET/);
  });

  it('believes X-Forwarded-For only from the proxies TRUST_PROXY names, and refuses true', () => {
    expect(loadConfig(valid).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...valid, TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ ...valid, TRUST_PROXY: '10.0.0.0/8, 192.168.1.5' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '192.168.1.5']);
    expect(() => loadConfig({ ...valid, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: true trusts every client/);
    expect(() => loadConfig({ ...valid, TRUST_PROXY: 'my-proxy' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ ...valid, TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
  });

  it('refuses TRUST_PROXY values that trust every client: a large hop count, 0.0.0.0/0, ::/0, wide subnets', () => {
    expect(loadConfig({ ...valid, TRUST_PROXY: '5' }).TRUST_PROXY).toBe(5);
    expect(loadConfig({ ...valid, TRUST_PROXY: 'loopback, linklocal, uniquelocal' }).TRUST_PROXY).toEqual(['loopback', 'linklocal', 'uniquelocal']);
    expect(loadConfig({ ...valid, TRUST_PROXY: '::ffff:10.0.0.0/104, fd00::/16' }).TRUST_PROXY).toEqual(['::ffff:10.0.0.0/104', 'fd00::/16']);
    for (const value of ['6', '99', '0.0.0.0/0', '::/0', '0.0.0.0/1,128.0.0.0/1', '10.0.0.0/7', '2000::/3', '::ffff:0.0.0.0/96']) {
      expect(() => loadConfig({ ...valid, TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: .*(at most 5)/);
    }
  });

  it('needs REAUTH_MAX_AGE_MINUTES of at least 1', () => {
    expect(loadConfig(valid).REAUTH_MAX_AGE_MINUTES).toBe(15);
    expect(() => loadConfig({ ...valid, REAUTH_MAX_AGE_MINUTES: '0' })).toThrow(/REAUTH_MAX_AGE_MINUTES/);
  });

  it('refuses the .env.example placeholder in production only', () => {
    expect(() => loadConfig({ ...valid, NODE_ENV: 'production', JWT_SECRET: JWT_SECRET_PLACEHOLDER })).toThrow(/JWT_SECRET/);
    expect(loadConfig({ ...valid, JWT_SECRET: JWT_SECRET_PLACEHOLDER }).JWT_SECRET).toBe(JWT_SECRET_PLACEHOLDER);
  });
});
