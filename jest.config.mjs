import { createRequire } from 'node:module';

// The path aliases are declared once, in tsconfig.json (scripts/path-aliases.cjs reads them).
const { base, swcPaths, jestModuleNameMapper } = createRequire(import.meta.url)('./scripts/path-aliases.cjs');

// ESM jest with @swc/jest. Projects: unit (fast, no servers), medium (repositories on
// the real PostgreSQL, object store on s3rver, transports on NATS), e2e (HTTP against both runtimes).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: base,
      paths: swcPaths,
    },
    module: { type: 'es6' },
  },
];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    ...jestModuleNameMapper,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  rootDir: process.cwd(),
};
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages,tools}/**/*.spec.ts'] },
    { ...common, displayName: 'medium', testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'], setupFiles: ['<rootDir>/test/medium/medium-timeout.cjs'] },
    // Chromium (Debian package, /usr/bin/chromium) driven by playwright-core against the standalone service.
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      setupFiles: ['<rootDir>/test/e2e/support/runtime-standalone.cjs'],
    },
    // The one end-to-end suite, run against both runtimes (test/e2e/support/runtime.ts reads E2E_RUNTIME).
    {
      ...common,
      displayName: 'e2e-standalone',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // test/e2e/distributed/ needs separate processes (stopping an app, the admin schema's tables).
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/distributed/'],
      setupFiles: ['<rootDir>/test/e2e/support/runtime-standalone.cjs'],
      testTimeout: 120000,
    },
    {
      ...common,
      displayName: 'e2e-distributed',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      setupFiles: ['<rootDir>/test/e2e/support/runtime-distributed.cjs'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/standalone/'],
      globalSetup: '<rootDir>/test/e2e/support/distributed-global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/support/distributed-global-teardown.ts',
      testTimeout: 120000,
    },
  ],
};
