/**
 * Architecture rules, checked by `npm test` (`npm run arch`):
 * - domain code imports nothing outward (no application, ports, adapters, no I/O libraries);
 * - application code never imports adapters;
 * - no service imports another service (they talk through events and internal HTTP); only a test may
 *   start processor-sandbox, the stand-in for the external processors;
 * - libraries never import services;
 * - the test infrastructure (libs/test-infra) imports no other payrail code, so every library's tests
 *   can use it without a cycle.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'domain/ holds rules only: it may import other domain files, libs/money, libs/time and libs/contracts',
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: {
        pathNot: [
          '^services/[^/]+/src/domain/',
          '^libs/money/',
          '^libs/time/',
          '^libs/contracts/',
          'node_modules/(date-fns|@date-fns)/',
        ],
      },
    },
    {
      name: 'application-never-imports-adapters',
      severity: 'error',
      from: { path: '^services/[^/]+/src/application/' },
      to: { path: '^services/[^/]+/src/adapters/' },
    },
    {
      name: 'no-service-imports-another-service',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/[^/]+/test/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'tests-import-no-other-service-but-the-sandbox',
      comment:
        'a contract test may start processor-sandbox in process: it stands in for the external processors',
      severity: 'error',
      from: { path: '^services/([^/]+)/test/' },
      to: { path: '^services/', pathNot: ['^services/$1/', '^services/processor-sandbox/'] },
    },
    {
      name: 'libs-never-import-services',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'test-infra-stands-alone',
      comment: 'libs/db and libs/messaging test with it: importing them back would make a cycle',
      severity: 'error',
      from: { path: '^libs/test-infra/' },
      to: { path: '^(libs|services)/', pathNot: '^libs/test-infra/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(libs|services)/' },
      to: { circular: true, viaOnly: { pathNot: '^libs/contracts/src/index.ts$' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '/drizzle/', '/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: true,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
