import {
  commonEnvSchema,
  env,
  exitOnConfigError,
  loadConfigOrExit,
  refuseDevelopmentSecret,
} from '@payrail/config';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import {
  createShutdown,
  httpUpstream,
  isPortInUse,
  listen,
  type RunningServer,
  shutdownOnSignals,
  type Upstream,
} from '@payrail/http';
import { createInProcessBus, createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createLogger, startTelemetry } from '@payrail/observability';
import { z } from 'zod';
import { signalReady } from './compile-cache';
import { type ServiceDefinition, type ServiceName, systemClock } from './service';

const UPSTREAM_ENV: Record<ServiceName, string> = {
  gateway: 'GATEWAY_URL',
  links: 'LINKS_URL',
  subscriptions: 'SUBSCRIPTIONS_URL',
  'billing-scheduler': 'BILLING_SCHEDULER_URL',
  'processor-gateway': 'PROCESSOR_GATEWAY_URL',
  'processor-sandbox': 'PROCESSOR_SANDBOX_URL',
};

export const DEFAULT_PORTS: Record<ServiceName, number> = {
  gateway: 3000,
  links: 3001,
  subscriptions: 3002,
  'billing-scheduler': 3003,
  'processor-gateway': 3004,
  'processor-sandbox': 3005,
};

function upstreamFromUrl(name: ServiceName, environment: Record<string, string | undefined>): Upstream {
  return httpUpstream(environment[UPSTREAM_ENV[name]] ?? `http://127.0.0.1:${DEFAULT_PORTS[name]}`);
}

/**
 * The variables of the process that runs one service on its own (port, database, broker, the secret, logs
 * and traces), parsed by `runStandalone` before the service's own (`ServiceDefinition.loadConfig`).
 */
export function standaloneEnvSchema(definition: Pick<ServiceDefinition, 'defaultPort' | 'database'>) {
  const needsInfra = definition.database !== undefined;
  return commonEnvSchema
    .extend({
      PORT: env.port(definition.defaultPort),
      DATABASE_URL: needsInfra ? env.postgresUrl() : env.postgresUrl().optional(),
      AMQP_URL: needsInfra ? env.amqpUrl() : env.amqpUrl().optional(),
      QUEUE_PREFIX: z.string().default(''),
      // Most events in one AMQP message (neighbours of one routing key, libs/messaging `bundles.ts`); 1 sends
      // each alone, for a deployment whose consumers are not all of a version that takes bundles apart.
      AMQP_BUNDLE_MAX: z.coerce.number().int().min(1).max(500).default(50),
      MIGRATE_ON_START: env.boolean(true),
      // Connections each process may open to PostgreSQL (replicas × services × this must fit the server's
      // max_connections).
      DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10),
    })
    .superRefine(refuseDevelopmentSecret('standalone'));
}

/**
 * Runs one service as its own process against real PostgreSQL and RabbitMQ: parse the environment (the
 * host's and the service's own: a wrong variable stops the process with one line naming it, before any
 * connection), apply migrations, connect, serve, and shut down in order on SIGTERM.
 */
export async function runStandalone(definition: ServiceDefinition): Promise<void> {
  const config = loadConfigOrExit(standaloneEnvSchema(definition));
  exitOnConfigError(() => definition.loadConfig(process.env));
  const telemetry = startTelemetry({
    serviceName: definition.name,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const logger = createLogger(definition.name, config.LOG_LEVEL);

  let database: DatabaseHandle | undefined;
  let bus: MessageBus;
  if (definition.database && config.DATABASE_URL && config.AMQP_URL) {
    database = openDatabase({ url: config.DATABASE_URL, max: config.DATABASE_POOL_MAX });
    bus = createRabbitMqBus({
      url: config.AMQP_URL,
      exchange: config.EVENTS_EXCHANGE,
      queuePrefix: config.QUEUE_PREFIX,
      bundleMax: config.AMQP_BUNDLE_MAX,
      logger,
    });
    // Independent of each other: the migrations (which wait for the other services' on a lock when
    // they start together) and the RabbitMQ connection, at the same time.
    await Promise.all([
      config.MIGRATE_ON_START ? database.migrate(definition.database) : undefined,
      bus.start(),
    ]);
  } else {
    bus = createInProcessBus({ logger });
    await bus.start();
  }

  const instance = await definition.create({
    database: database as DatabaseHandle,
    bus,
    logger,
    clock: systemClock,
    internalSecret: config.INTERNAL_SECRET,
    env: process.env,
    upstream: (name) => upstreamFromUrl(name, process.env),
  });
  await instance.start();
  let server: RunningServer;
  try {
    server = await listen(instance.app, config.PORT);
  } catch (error) {
    if (!isPortInUse(error)) throw error;
    process.stderr.write(`${definition.name}: port ${config.PORT} is in use; set PORT to another port\n`);
    process.exit(1);
  }
  logger.info({ port: server.port }, `${definition.name} ready`);
  signalReady();

  const shutdown = createShutdown(
    {
      markNotReady: () => instance.markNotReady(),
      closeServer: () => server.close(),
      drainConsumers: () => bus.stopConsuming(),
      stopRelay: () => instance.stop(),
      closeBroker: () => bus.close(),
      closeDatabase: async () => database?.close(),
      flushTelemetry: () => telemetry.shutdown(),
    },
    (step, error) => logger.error({ err: error, step }, 'shutdown step failed'),
  );
  shutdownOnSignals(shutdown);
  stopWhenParentGoes();
}

/**
 * A service started by `npm start` has an IPC channel to it: when that process goes away (even
 * killed outright), the channel closes and the service shuts down as on SIGTERM instead of living on
 * as an orphan that holds its port.
 */
function stopWhenParentGoes(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** The one-shot migration command of a service (Kubernetes Job, compose `migrate`). */
export async function runMigrationsOnly(definition: ServiceDefinition): Promise<void> {
  if (!definition.database) return;
  const config = loadConfigOrExit(z.object({ DATABASE_URL: env.postgresUrl() }));
  const database = openDatabase({ url: config.DATABASE_URL, max: 1 });
  try {
    await database.migrate(definition.database);
    process.stdout.write(`${definition.name}: migrations applied to schema ${definition.database.schema}\n`);
  } finally {
    await database.close();
  }
}
