import { httpHandler } from '#http/handler.ts';
import { planCatalog } from '../billing/plans.ts';
import { requireTenant } from '../lookups/index.ts';

/** GET /v1/billing/plans: the customer Plan catalog, with what can be placed now in the caller's Home Region (functions/billing/plans.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, now }) => ({
  status: 200,
  body: await planCatalog(await requireTenant(principal.tenantId), now),
}));
