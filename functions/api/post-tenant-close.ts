import { httpHandler } from '#http/handler.ts';
import { closeAccount } from '../billing/close-account.ts';
import { requireTenant } from '../lookups/index.ts';

/** POST /v1/tenant/close: closes an account that never paid (functions/billing/close-account.ts). */
export const handler = httpHandler({ auth: 'session', role: 'administrator' }, async ({ principal, now }) => {
  const tenant = await requireTenant(principal.tenantId);
  return { status: 202, body: await closeAccount({ tenant, now }) };
});
