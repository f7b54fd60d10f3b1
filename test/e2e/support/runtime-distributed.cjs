// jest setupFiles of the e2e-distributed project: test/e2e/support/runtime.ts uses the stack
// that distributed-global-setup.ts started (one process per app) and described in E2E_* vars.
process.env.E2E_RUNTIME = 'distributed';
// jest ignores testTimeout inside a project entry of jest.config.mjs (it is a global option):
// apply the projects' 120 s here, where the `jest` object of the test file's module registry exists.
if (typeof jest !== 'undefined') jest.setTimeout(120000);
