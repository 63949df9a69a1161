import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { listInvoices } from '../billing/invoices.ts';

/** GET /v1/billing/invoices[?limit=&cursor=]: the tenant's invoices, newest first, paged (functions/billing/invoices.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: await listInvoices(await requireTenant(principal.tenantId), {
    limit: query.limit || undefined,
    cursor: query.cursor || undefined,
  }),
}));
