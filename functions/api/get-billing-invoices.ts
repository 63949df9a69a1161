import { httpHandler } from '#http/handler.ts';
import { listInvoices } from '../billing/invoices.ts';
import { readableTenant } from '../tenants/accounts.ts';

/** GET /v1/billing/invoices[?limit=&cursor=]: the tenant's invoices, newest first, paged (functions/billing/invoices.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: await listInvoices(await readableTenant(principal, query.account || undefined), {
    limit: query.limit || undefined,
    cursor: query.cursor || undefined,
  }),
}));
