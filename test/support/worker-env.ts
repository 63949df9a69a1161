import { inject } from 'vitest';

// Point every AWS SDK client of this worker at the stand-ins started by the global setup.
Object.assign(process.env, inject('localCloudEnvironment'), {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  STACK_DOMAIN: 'stacks.test',
  TENANT_APP_URL: 'https://app.test/',
  MAIL_FROM: 'billing@stacks.test',
  // The emulator is not Stripe: tests do not wait for Stripe's 25 calls/s (the bench shows the limit).
  PROCESSOR_RATE_LIMIT_PER_SECOND: '1000',
});
