import { httpHandler } from '#http/handler.ts';
import { billingSummary } from '../billing/invoices.ts';
import { accountLinkSlug, readableTenant } from '../tenants/accounts.ts';

/** GET /v1/billing/summary[?account=]: this period's invoice, the next one and the card on file (functions/billing/invoices.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => {
  const tenant = await readableTenant(principal, query.account || undefined);
  return { status: 200, body: await billingSummary(tenant, accountLinkSlug(principal, tenant)) };
});
