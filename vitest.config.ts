import { defineConfig } from 'vitest/config';

const reporters = process.env.CI ? ['default', 'json'] : ['default'];

/**
 * Four test layers, one project each (`npm test -- --project unit` runs one layer):
 * - unit: pure code, no local cloud (no DynamoDB Local, so no Java): seconds;
 * - integration: handlers and stores against DynamoDB Local and the SQS/SES stand-ins, each file
 *   on a table and an intake queue of its own (test/support/worker-env.ts);
 * - infra: the CDK stack with cdk-nag, synthesized once per run (test/support/infra-setup.ts);
 * - e2e: `npm start` over HTTP, two files at a time (a shared server each), after the other layers;
 * - chaos: the short chaos run, a control plane of its own in the test's process, with e2e.
 */
export default defineConfig({
  test: {
    // Two test files at once (vitest's default on 2 cores is one): an integration file spends much
    // of its time waiting for DynamoDB Local and the stand-ins, so a second file keeps both cores
    // busy (on the 2-core CI machine the integration layer took half the time). Unit,
    // integration and infra share this group's two workers; e2e runs two files at a time, each on a server of its own.
    maxWorkers: 2,
    reporters,
    outputFile: { json: '.reports/vitest.json' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: ['test/support/test-environment.ts'],
          testTimeout: 10_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // DynamoDB Local and the SQS/SES stand-ins start once per run, for this layer only.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/test-environment.ts', 'test/support/worker-env.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          // The app is synthesized (bundled, cdk-nag run) once per run and read by every file.
          globalSetup: ['test/support/infra-setup.ts'],
          setupFiles: ['test/support/test-environment.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // One `npm start` for the run (test/support/e2e-setup.ts), shared by every file; a file
          // that needs its own (a restart, another environment) says why. After the other layers, two
          // files at a time, each on a shared server it claims (test/support/local-cloud.ts):
          // tests step their server's clock and sweep, so two files never share one.
          globalSetup: ['test/support/e2e-setup.ts'],
          // Gives a file's claimed server back when its tests are done (test/support/e2e-file.ts).
          setupFiles: ['test/support/e2e-file.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'chaos',
          // The short chaos run (test/chaos/run.ts is the long one): it starts its own control
          // plane, DynamoDB Local included, so it needs neither the integration layer's shared
          // table nor the e2e layer's server.
          include: ['test/chaos/**/*.test.ts'],
          setupFiles: ['test/support/test-environment.ts'],
          pool: 'forks',
          testTimeout: 180_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
