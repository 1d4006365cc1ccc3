export { signalReady } from './compile-cache';
export { type EmbeddedOptions, type EmbeddedSystem, runEmbedded } from './embedded';
export {
  type Clock,
  type ServiceDefinition,
  type ServiceDependencies,
  type ServiceInstance,
  type ServiceName,
  readinessChecks,
  systemClock,
  type Upstream,
} from './service';
export { keepPublishedSetting, serviceEnvSchema } from './outbox-settings';
export { randomPool } from './random-pool';
export { DEFAULT_PORTS, runMigrationsOnly, runStandalone, standaloneEnvSchema } from './standalone';
