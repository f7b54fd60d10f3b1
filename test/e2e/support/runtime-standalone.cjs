// jest setupFiles of the e2e-standalone project: test/e2e/support/runtime.ts starts the
// whole service in the test process (startStandalone) for each test file.
process.env.E2E_RUNTIME = 'standalone';
// The in-process apps' loggers read LOG_LEVEL when first imported: keep the test output readable.
process.env.LOG_LEVEL ??= 'warn';
// jest ignores testTimeout inside a project entry of jest.config.mjs (it is a global option):
// apply the projects' 120 s here, where the `jest` object of the test file's module registry exists.
if (typeof jest !== 'undefined') jest.setTimeout(120000);
