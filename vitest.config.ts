import { defineConfig } from 'vitest/config';

const reporters = process.env.CI ? ['default', 'json'] : ['default'];

export default defineConfig({
  test: {
    reporters,
    outputFile: { json: '.reports/vitest.json' },
    projects: [
      {
        test: {
          name: 'unit, integration, infra',
          include: ['test/{unit,integration,infra}/**/*.test.ts'],
          // DynamoDB Local and the SQS/SES stand-ins start once per run for these layers.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/worker-env.ts'],
          pool: 'forks',
          testTimeout: 30_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Each file runs `npm start` (its own DynamoDB Local) as a user would: one at a time,
          // after the other layers, so two cores are not shared by several JVMs and a browser.
          fileParallelism: false,
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
