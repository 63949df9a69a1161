import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { invoiceDocumentUrl } from '../billing/invoices.ts';

/**
 * GET /v1/billing/invoices/{invoiceRef}/{document}: 303 to the processor's page (`view`) or PDF
 * (`pdf`) of one of the tenant's invoices, read now (functions/billing/invoices.ts). Any member.
 */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, pathParameters }) => ({
  status: 303,
  headers: {
    location: await invoiceDocumentUrl(await requireTenant(principal.tenantId), {
      ref: pathParameters.invoiceRef,
      document: pathParameters.document,
    }),
  },
}));
