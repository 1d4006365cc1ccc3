import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  commonEnvSchema,
  DEVELOPMENT_INTERNAL_SECRET,
  env,
  parseConfig,
  refuseDevelopmentSecret,
} from '../src/index';

const schema = z.object({
  PORT: env.port(3000),
  DATABASE_URL: env.postgresUrl(),
  AMQP_URL: env.amqpUrl(),
  SIMULATED_TIME: env.boolean(false),
});

describe('parseConfig', () => {
  it('parses a valid environment and applies defaults', () => {
    const config = parseConfig(schema, { DATABASE_URL: 'postgres://x@h/db', AMQP_URL: 'amqp://h' });
    expect(config).toEqual({
      PORT: 3000,
      DATABASE_URL: 'postgres://x@h/db',
      AMQP_URL: 'amqp://h',
      SIMULATED_TIME: false,
    });
  });

  it('names every missing or wrong variable', () => {
    let caught: unknown;
    try {
      parseConfig(schema, { PORT: 'eighty', AMQP_URL: 'http://nope' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.variables.sort()).toEqual(['AMQP_URL', 'DATABASE_URL', 'PORT']);
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).toContain('PORT');
  });

  it('treats an empty variable as unset', () => {
    expect(() => parseConfig(schema, { DATABASE_URL: '', AMQP_URL: 'amqp://h' })).toThrow(/DATABASE_URL/);
  });
});

describe('refuseDevelopmentSecret', () => {
  const base = commonEnvSchema.extend({ PORT: env.port(3000) });
  const standalone = base.superRefine(refuseDevelopmentSecret('standalone'));
  const embedded = base.superRefine(refuseDevelopmentSecret('embedded'));

  it('refuses a standalone service without INTERNAL_SECRET, naming the variable', () => {
    let caught: unknown;
    try {
      parseConfig(standalone, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables).toEqual(['INTERNAL_SECRET']);
    expect((caught as ConfigError).message).toContain('INTERNAL_SECRET');
  });

  it('refuses the development value written out, too', () => {
    expect(() => parseConfig(standalone, { INTERNAL_SECRET: DEVELOPMENT_INTERNAL_SECRET })).toThrow(
      /INTERNAL_SECRET/,
    );
  });

  it('refuses the development secret in production even when embedded', () => {
    expect(() => parseConfig(embedded, { NODE_ENV: 'production' })).toThrow(/INTERNAL_SECRET.*production/);
  });

  it('keeps the development default for embedded development and tests', () => {
    expect(parseConfig(embedded, {}).INTERNAL_SECRET).toBe(DEVELOPMENT_INTERNAL_SECRET);
    expect(parseConfig(embedded, { NODE_ENV: 'test' }).INTERNAL_SECRET).toBe(DEVELOPMENT_INTERNAL_SECRET);
  });

  it('accepts a secret of its own anywhere', () => {
    const secret = 'a-secret-of-our-own-0123456789';
    expect(parseConfig(standalone, { NODE_ENV: 'production', INTERNAL_SECRET: secret }).INTERNAL_SECRET).toBe(
      secret,
    );
  });
});
