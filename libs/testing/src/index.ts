export { isReachable, uniqueName, uniqueSuffix, LOCAL_AMQP_URL, LOCAL_POSTGRES_URL } from './infra';
export { tcpProxy, type TcpProxy } from './tcp-proxy';
export { createTestDatabase, type TestDatabase, testAmqpUrl, testPostgresUrl } from './database';
export {
  aMerchant,
  type ServiceUnderTest,
  startService,
  type StartServiceOptions,
  TEST_INTERNAL_SECRET,
  testClock,
  waitFor,
} from './service-harness';
export { deleteBrokerTopology } from './broker';
