import { httpHandler } from '#http/handler.ts';
import { billingStatus } from '../billing/status.ts';
import { readableTenant } from '../tenants/accounts.ts';

/** GET /v1/billing/status: the tenant's billing state and history (functions/billing/status.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: await billingStatus(await readableTenant(principal, query.account || undefined)),
}));
