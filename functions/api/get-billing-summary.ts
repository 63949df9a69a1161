import { httpHandler } from '#http/handler.ts';
import { requireTenant } from '#http/tenant.ts';
import { billingSummary } from '../billing/invoices.ts';

/** GET /v1/billing/summary: this period's invoice, the next one and the card on file (functions/billing/invoices.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal }) => ({
  status: 200,
  body: await billingSummary(await requireTenant(principal.tenantId)),
}));
