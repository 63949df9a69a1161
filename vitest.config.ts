import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/{unit,integration,infra,e2e}/**/*.test.ts'],
    // DynamoDB Local and the SQS/SES stand-ins start once per run, for every layer.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/worker-env.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.reports/vitest.json' },
  },
});
