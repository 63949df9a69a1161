import { httpHandler } from '#http/handler.ts';
import { listInvoices } from '../billing/invoices.ts';
import { accountLinkSlug, readableTenant } from '../tenants/accounts.ts';

/**
 * GET /v1/billing/invoices[?limit=&cursor=&account=]: the tenant's invoices (or a former account's),
 * newest first, paged (functions/billing/invoices.ts).
 */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => {
  const tenant = await readableTenant(principal, query.account || undefined);
  return {
    status: 200,
    body: await listInvoices(tenant, {
      limit: query.limit || undefined,
      cursor: query.cursor || undefined,
      account: accountLinkSlug(principal, tenant),
    }),
  };
});
