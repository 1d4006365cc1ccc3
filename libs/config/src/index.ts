import { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly variables: string[],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with a zod object schema. Unknown variables are ignored; a wrong or missing
 * variable throws a `ConfigError` whose message names every offending variable.
 */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  // Treat empty strings as unset, as shells and compose files often pass `VAR=`.
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && value !== '') cleaned[key] = value;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const variables = [...new Set(result.error.issues.map((issue) => String(issue.path[0] ?? '(root)')))];
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`, variables);
}

/**
 * For `main.ts`: parse, or print the message naming the variables and stop the process with exit code 1.
 */
export function loadConfigOrExit<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** Building blocks shared by the services' environment schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: () => z.url(),
  postgresUrl: () => z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  amqpUrl: () => z.string().regex(/^amqps?:\/\//, 'must be an amqp:// URL'),
  secret: () => z.string().min(16, 'must be at least 16 characters'),
  boolean: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
};

/** The variables every service reads. */
export const commonEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  EVENTS_EXCHANGE: z.string().default('payrail.events'),
  INTERNAL_SECRET: env.secret().default('dev-internal-secret-change-me'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});
