/**
 * `npm run test:cluster`: the runtime on a real Temporal cluster (test/cluster). Its own run, after
 * the main suite, so its server, PostgreSQL and workers never compete for the two cores with the
 * main suite's timing-sensitive tests. The global setup is the integration project's: the dev
 * server the cluster is timed against, and the workflow bundle the worker processes load.
 */
const main = require('./jest.config');

const integration = main.projects.find((project) => project.displayName === 'integration');

module.exports = {
  ...integration,
  displayName: 'cluster',
  roots: ['<rootDir>/test/cluster'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: main.testTimeout,
  maxWorkers: 1,
};
