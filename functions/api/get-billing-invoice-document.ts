import { httpHandler } from '#http/handler.ts';
import { invoiceDocumentUrl } from '../billing/invoices.ts';
import { readableTenant } from '../tenants/accounts.ts';

/**
 * GET /v1/billing/invoices/{invoiceRef}/{document}[?account=]: 303 to the processor's page (`view`)
 * or PDF (`pdf`) of one of the tenant's invoices (or a former account's), read now
 * (functions/billing/invoices.ts). Any member.
 */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters, query }) => ({
  status: 303,
  headers: {
    location: await invoiceDocumentUrl(await readableTenant(principal, query.account || undefined), {
      ref: pathParameters.invoiceRef,
      document: pathParameters.document,
    }),
  },
}));
