import { defineConfig } from 'vitest/config';

/**
 * The integration suite runs twice, once per database, each file against a fresh
 * database of its own; unit tests and the MCP conformance suite run once.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_DB: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_DB: 'postgres' },
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
