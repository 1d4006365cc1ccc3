import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseHandle } from '@payrail/db';
import { openPgliteDatabase, PGlite } from '@payrail/db/pglite';
import { createShutdown, listen, type RunningServer } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock, ServiceDefinition, ServiceInstance, ServiceName } from './service';

export interface EmbeddedOptions {
  /**
   * The one PGlite database of every service lives in `<dataDir>/pglite`: each service in its own
   * schema with its own migrations table, as in one PostgreSQL, and its queries run as its own role,
   * which can use only that schema.
   */
  dataDir: string;
  port: number;
  internalSecret: string;
  env: Record<string, string | undefined>;
  logger: Logger;
  clock: Clock;
}

export interface EmbeddedSystem {
  gateway: RunningServer;
  /** Services on their own origin (see `embeddedListener`), by name. */
  listeners: Map<ServiceName, RunningServer>;
  instances: Map<ServiceName, ServiceInstance>;
  shutdown(): Promise<void>;
}

/**
 * Every service in one process: all on one embedded PostgreSQL (PGlite) in `dataDir`, each in its own
 * schema as its own role, all on the in-process bus, reaching each other in memory. Only the gateway
 * listens on a port (and the services that need their own origin).
 */
export async function runEmbedded(
  definitions: ServiceDefinition[],
  options: EmbeddedOptions,
): Promise<EmbeddedSystem> {
  const bus = createInProcessBus({ logger: options.logger });
  await bus.start();
  const instances = new Map<ServiceName, ServiceInstance>();
  const databases: DatabaseHandle[] = [];
  let pglite: PGlite | undefined;
  const listeners = new Map<ServiceName, RunningServer>();
  const env = { ...options.env };
  let server: RunningServer | undefined;

  // Defined first so that a start failing half-way closes what it had opened: PGlite keeps its
  // folder until it is closed, and a listener would hold its port.
  const shutdown = createShutdown({
    markNotReady: () => {
      for (const instance of instances.values()) instance.markNotReady();
    },
    closeServer: async () => {
      await Promise.all([server?.close(), ...[...listeners.values()].map((own) => own.close())]);
    },
    drainConsumers: () => bus.stopConsuming(),
    stopRelay: async () => {
      for (const instance of instances.values()) await instance.stop();
    },
    closeBroker: () => bus.close(),
    closeDatabase: async () => {
      for (const database of databases) await database.close();
      await pglite?.close();
    },
  });

  try {
    for (const definition of definitions) {
      let database: DatabaseHandle | undefined;
      if (definition.database) {
        if (!pglite) {
          const dir = path.join(options.dataDir, 'pglite');
          mkdirSync(dir, { recursive: true });
          pglite = new PGlite(dir);
        }
        database = openPgliteDatabase({ pglite, role: `payrail_${definition.database.schema}` });
        databases.push(database);
        await database.migrate(definition.database);
      }
      const instance = await definition.create({
        database: database as DatabaseHandle,
        bus,
        logger: options.logger.child({ service: definition.name }),
        clock: options.clock,
        internalSecret: options.internalSecret,
        env,
        embedded: true,
        upstream: (name) => async (request) => {
          const target = instances.get(name);
          if (!target) return new Response(`${name} is not running`, { status: 503 });
          return target.app.fetch(request);
        },
      });
      instances.set(definition.name, instance);
      if (definition.embeddedListener) {
        const own = await listen(instance.app, definition.embeddedListener.port(env, options.port));
        listeners.set(definition.name, own);
        env[definition.embeddedListener.urlVariable] ??= `http://localhost:${own.port}`;
      }
    }
    for (const instance of instances.values()) await instance.start();

    const gateway = instances.get('gateway');
    if (!gateway) throw new Error('the embedded system needs the gateway');
    server = await listen(gateway.app, options.port);
  } catch (error) {
    await shutdown();
    throw error;
  }
  return { gateway: server, listeners, instances, shutdown };
}
