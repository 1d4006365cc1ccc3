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
 * variable throws a `ConfigError` whose message, one line, names every offending variable.
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
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  throw new ConfigError(`Invalid environment: ${problems.join('; ')}`, variables);
}

/** A `ConfigError` as the one line a process prints before it stops. */
export function configErrorLine(error: ConfigError): string {
  return error.message.replace(/\s*\n\s*/g, ' ');
}

/**
 * Runs `parse` (a service's `loadConfig`, or `parseConfig`); on a `ConfigError` prints one line naming
 * the wrong variables to stderr and stops the process with exit code 1. Any other error is thrown.
 */
export function exitOnConfigError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${configErrorLine(error)}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * For `main.ts`: parse, or print the line naming the variables and stop the process with exit code 1.
 */
export function loadConfigOrExit<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  return exitOnConfigError(() => parseConfig(schema, env));
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

/**
 * What `INTERNAL_SECRET` is when nobody set it. Everyone who has read this file knows it, and with it
 * anyone who reaches a service's port can sign any merchant context: a development convenience only.
 */
export const DEVELOPMENT_INTERNAL_SECRET = 'dev-internal-secret-change-me';

/** The variables every service reads. */
export const commonEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  EVENTS_EXCHANGE: z.string().default('payrail.events'),
  INTERNAL_SECRET: env.secret().default(DEVELOPMENT_INTERNAL_SECRET),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});

/**
 * Refuses the development `INTERNAL_SECRET` where it would be a real hole: with `NODE_ENV=production`,
 * and in any service started as its own process (its port is reachable by others, unlike the embedded
 * system's, whose services talk in memory). Use with `.superRefine()` on a schema extending
 * `commonEnvSchema`.
 */
export function refuseDevelopmentSecret(start: 'standalone' | 'embedded') {
  return (config: { NODE_ENV: string; INTERNAL_SECRET: string }, ctx: z.RefinementCtx): void => {
    if (config.INTERNAL_SECRET !== DEVELOPMENT_INTERNAL_SECRET) return;
    if (start === 'embedded' && config.NODE_ENV !== 'production') return;
    ctx.addIssue({
      code: 'custom',
      path: ['INTERNAL_SECRET'],
      message:
        start === 'standalone'
          ? 'must be set to a secret of your own (at least 16 characters, the same for every service) when a service runs as its own process; the development default is refused'
          : 'must be set to a secret of your own (at least 16 characters) when NODE_ENV=production; the development default is refused',
    });
  };
}
