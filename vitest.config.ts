import { defineConfig } from 'vitest/config';

/**
 * Tests run in a new order every run (within each file; files run in parallel anyway),
 * so none can lean on what another left behind. The summary names the seed:
 * TEST_ORDER_SEED=<seed> runs that order again.
 */
const ORDER_SEED = Number(process.env.TEST_ORDER_SEED) || Math.floor(Math.random() * 1e9);
process.env.TEST_ORDER_SEED = String(ORDER_SEED);
const shuffled = { shuffle: { files: false, tests: true }, seed: ORDER_SEED };

/**
 * The integration suite runs twice, once per database, each file against a fresh
 * database of its own; unit tests and the MCP conformance suite run once.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000,
    // Test files share their worker's modules instead of loading the service again each:
    // nothing in it keeps state between contexts (AppContext is handed in, never
    // imported), and loading it was a quarter of the suite's time.
    isolate: false,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], sequence: shuffled },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_DB: 'sqlite' },
          sequence: shuffled,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_DB: 'postgres' },
          sequence: shuffled,
        },
      },
      {
        // Browser journeys run once, on the embedded default: the portal's rules are the
        // operations', which the integration suite runs on both databases.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          env: { TEST_DB: 'sqlite' },
          testTimeout: 120_000,
        },
      },
      {
        // Three instances behind HAProxy, as several machines run the service: on
        // PostgreSQL and Redis, its deployment for more than one machine.
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          env: { TEST_DB: 'postgres' },
          testTimeout: 60_000,
        },
      },
      {
        // The MCP conformance suite runs once: it tests the protocol, not the database.
        extends: true,
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          env: { TEST_DB: 'sqlite' },
        },
      },
    ],
  },
});
