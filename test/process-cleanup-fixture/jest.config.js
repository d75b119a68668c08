/** A jest run of its own for test/unit/process-cleanup.test.ts: the main suite's guard around fixture tests that leave a process behind. */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['**/*.fixture.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  globalSetup: '<rootDir>/guard-setup.ts',
  globalTeardown: '<rootDir>/guard-teardown.ts',
};
