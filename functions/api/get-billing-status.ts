import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { billingStatus } from '../billing/status.ts';

/** GET /v1/billing/status: the tenant's billing state and history (functions/billing/status.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => ({
  status: 200,
  body: await billingStatus(await requireTenant(principal.tenantId)),
}));
