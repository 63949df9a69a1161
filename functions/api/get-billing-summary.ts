import { httpHandler } from '#http/handler.ts';
import { billingSummary } from '../billing/invoices.ts';
import { readableTenant } from '../tenants/accounts.ts';

/** GET /v1/billing/summary: this period's invoice, the next one and the card on file (functions/billing/invoices.ts). */
export const handler = httpHandler({ auth: 'session' }, async ({ principal, query }) => ({
  status: 200,
  body: await billingSummary(await readableTenant(principal, query.account || undefined)),
}));
