// The service harness: runs a service in the test's process and builds what tests send it. The
// infrastructure underneath (servers, databases, broker) is @payrail/test-infra, re-exported here so a
// service's tests have one import.
export * from '@payrail/test-infra';
export {
  aDynamicLink,
  aMerchant,
  aOneOffLink,
  aSignedInUserRequest,
  aStaticLink,
  without,
} from './mothers';
export { countUpdates, type UpdateCounts } from './heap-only-updates';
export {
  configurationMismatches,
  type EnvSchema,
  type ReadmeConfiguration,
  readmeConfiguration,
} from './readme-configuration';
export {
  type MigratedTestDatabase,
  migratedTestDatabase,
  type ServiceUnderTest,
  startService,
  type StartServiceOptions,
  TEST_INTERNAL_SECRET,
  testClock,
  waitFor,
} from './service-harness';
export {
  csrfOf,
  type PageAnswer,
  type PayPageCustomer,
  type PayProcessor,
  payOnPayPage,
  payPageCustomer,
  type SubscribeOnPayPage,
} from './pay-page-customer';
export { type TestRabbitMqBus, testRabbitMqBus } from './test-bus';
