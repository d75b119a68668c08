/**
 * `npm run test:cluster`: the runtime on a real Temporal cluster (test/cluster). Its own run, after
 * the main suite, so its server, PostgreSQL and workers never compete for the two cores with the
 * main suite's timing-sensitive tests. The global setup is the main suite's: the dev server the
 * cluster is timed against, and the workflow bundle the worker processes load.
 */
const main = require('./jest.config');

module.exports = {
  ...main,
  roots: ['<rootDir>/test/cluster'],
  testPathIgnorePatterns: [],
  maxWorkers: 1,
};
