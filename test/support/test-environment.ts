import { ENVIRONMENT } from '../../functions/ports/config.ts';

// The deployment settings every test worker sees (no cloud here: worker-env.ts adds the local
// cloud's endpoints for the integration layer).
Object.assign(process.env, {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  STACK_DOMAIN: 'stacks.test',
  TENANT_APP_URL: 'https://app.test/',
  MAIL_FROM: 'billing@stacks.test',
  // The emulator is not Stripe: tests do not wait for Stripe's 25 calls/s (the bench shows the limit).
  PROCESSOR_RATE_LIMIT_PER_SECOND: '1000',
  // The SES stand-in is not the sandbox: the outbox sends as fast as under npm start.
  SES_MAX_SEND_RATE: ENVIRONMENT.SES_MAX_SEND_RATE.localDefault,
  // Every Plan Change release gate is ready in tests, as under npm start.
  PLAN_CHANGE_GATES_READY:
    'plan-catalog,processor-integration,replacement-path,reconciliation-loop,customer-contract',
});
