// What a script run outside vitest (the chaos run) may take from the test infrastructure: nothing here
// imports vitest, which refuses to load outside a test run.
export { freePort, LOCAL_AMQP_URL, LOCAL_POSTGRES_URL, uniqueName } from '@payrail/test-infra/src/infra';
export { type PrivatePostgres, startPrivatePostgres } from '@payrail/test-infra/src/private-postgres';
export { type PrivateRabbitMq, startPrivateRabbitMq } from '@payrail/test-infra/src/private-rabbitmq';
export { createScratchDatabase, type TestDatabase } from '@payrail/test-infra/src/scratch-database';
