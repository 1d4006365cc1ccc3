import type { TestProject } from 'vitest/node';
import { isReachable, LOCAL_AMQP_URL, LOCAL_POSTGRES_URL } from './infra';

/**
 * Vitest global setup: finds the Postgres and RabbitMQ servers the tests will use, once per run.
 * Order: `DATABASE_URL` / `AMQP_URL` from the environment, else the local default ports,
 * else testcontainers (when a Docker engine is available). If none is reachable the run fails
 * and says what to start.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Array<() => Promise<unknown>> = [];
  const postgresUrl = await findPostgres(stops, [process.env.DATABASE_URL, LOCAL_POSTGRES_URL]);
  const amqpUrl = await findRabbit(stops, [process.env.AMQP_URL, LOCAL_AMQP_URL]);
  project.provide('postgresUrl', postgresUrl);
  project.provide('amqpUrl', amqpUrl);
  process.env.TEST_POSTGRES_URL = postgresUrl;
  process.env.TEST_AMQP_URL = amqpUrl;
  return async () => {
    for (const stop of stops) await stop();
  };
}

/** The first reachable candidate, else a testcontainers PostgreSQL, else an error saying what to start. */
export async function findPostgres(
  stops: Array<() => Promise<unknown>>,
  candidates: Array<string | undefined>,
  startContainer: () => Promise<string> = startPostgresContainer(stops),
): Promise<string> {
  for (const url of candidates) if (url && (await isReachable(url, 5432))) return url;
  const started = await tryContainer(startContainer);
  if ('url' in started) return started.url;
  throw new Error(
    `No PostgreSQL for the tests: set DATABASE_URL, start PostgreSQL on 127.0.0.1:5432 (user postgres, trust auth), or start a Docker engine for testcontainers (${started.reason}).`,
  );
}

function startPostgresContainer(stops: Array<() => Promise<unknown>>) {
  return async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    stops.push(() => container.stop());
    return `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  };
}

/** The first reachable candidate, else a testcontainers RabbitMQ, else an error saying what to start. */
export async function findRabbit(
  stops: Array<() => Promise<unknown>>,
  candidates: Array<string | undefined>,
  startContainer: () => Promise<string> = startRabbitContainer(stops),
): Promise<string> {
  for (const url of candidates) if (url && (await isReachable(url, 5672))) return url;
  const started = await tryContainer(startContainer);
  if ('url' in started) return started.url;
  throw new Error(
    `No RabbitMQ for the tests: set AMQP_URL, start RabbitMQ on 127.0.0.1:5672 (guest/guest), or start a Docker engine for testcontainers (${started.reason}).`,
  );
}

function startRabbitContainer(stops: Array<() => Promise<unknown>>) {
  return async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('rabbitmq:3.13-alpine')
      .withExposedPorts(5672)
      .withWaitStrategy(Wait.forLogMessage(/Server startup complete/))
      .start();
    stops.push(() => container.stop());
    return `amqp://guest:guest@${container.getHost()}:${container.getMappedPort(5672)}`;
  };
}

/**
 * Why testcontainers could not help goes into the error that fails the run, not to stderr: a run
 * that finds its servers prints nothing about containers it did not need.
 */
async function tryContainer(start: () => Promise<string>): Promise<{ url: string } | { reason: string }> {
  try {
    return { url: await start() };
  } catch (error) {
    return { reason: `testcontainers: ${(error as Error).message}` };
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    amqpUrl: string;
  }
}
