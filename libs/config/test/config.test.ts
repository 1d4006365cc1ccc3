import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, parseConfig } from '../src/index';

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
