export { deleteBrokerTopology } from './broker';
export { createTestDatabase, type TestDatabase, testAmqpUrl, testPostgresUrl } from './database';
export { createScratchDatabase } from './scratch-database';
export { freePort, isReachable, LOCAL_AMQP_URL, LOCAL_POSTGRES_URL, uniqueName, uniqueSuffix } from './infra';
export { type PrivatePostgres, startPrivatePostgres } from './private-postgres';
export { type PrivateRabbitMq, startPrivateRabbitMq } from './private-rabbitmq';
export { type TcpProxy, tcpProxy } from './tcp-proxy';
