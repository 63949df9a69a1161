import { httpHandler } from '#http/handler.ts';
import { openPortal } from '../billing/portal.ts';
import { requireTenant } from '../lookups/index.ts';

/** POST /v1/billing/portal: a Billing Portal session (functions/billing/portal.ts). */
export const handler = httpHandler(
  { auth: 'session', role: 'administrator' },
  async ({ principal, requestId }) => {
    const tenant = await requireTenant(principal.tenantId);
    return { status: 200, body: await openPortal({ tenant, requestId }) };
  },
);
