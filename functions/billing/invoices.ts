import {
  type BilledStack,
  INVOICE_DOCUMENTS,
  INVOICE_STATUS_WORDS,
  invoiceCursor,
  invoiceDocumentPath,
  invoiceLines,
} from '#core/invoices.ts';
import { refuse } from '#core/refusals/index.ts';
import {
  defaultPaymentMethod,
  type InvoiceFact,
  invoiceAddresses,
  invoicePage,
  latestInvoice,
  upcomingInvoice,
} from '#ports/processor/account.ts';
import { viaProcessor } from '#ports/processor/errors.ts';
import { getBilling } from '#store/billing.ts';
import { listStacks } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';

/**
 * THE money view of Account & Billing: what the tenant pays (the latest invoice, line by line per
 * Stack and Plan, with discount and tax), when and how much next (the processor's upcoming
 * invoice), the card on file (display only: it is changed in the portal), and the invoices paid,
 * newest first, page by page. Read from the processor through the port; no processor id in it:
 * an invoice's hosted page and PDF are linked through our own route (invoiceDocumentUrl), which
 * reads the processor's address afresh and redirects to it.
 */

export const INVOICES_PAGE_DEFAULT = 10;
export const INVOICES_PAGE_MAX = 25;

/** The Stacks an invoice names: those not torn down, by name and Plan. */
const billedStacks = async (tenantId: string): Promise<BilledStack[]> =>
  (await listStacks(tenantId))
    .filter((stack) => stack.lifecycle !== 'torn_down')
    .map((stack) => ({ name: stack.name, plan: stack.plan }));

const invoiceView = (invoice: InvoiceFact, stacks: readonly BilledStack[], account?: string) => ({
  number: invoice.number,
  issuedAt: invoice.createdAt,
  status: invoice.status,
  statusText: INVOICE_STATUS_WORDS[invoice.status],
  currency: invoice.currency,
  periodStart: invoice.periodStart,
  periodEnd: invoice.periodEnd,
  lines: invoiceLines(invoice.lines, stacks),
  subtotal: invoice.subtotal,
  discount: invoice.discount,
  tax: invoice.tax,
  total: invoice.total,
  creditApplied: invoice.creditApplied,
  amountDue: invoice.amountDue,
  amountPaid: invoice.amountPaid,
  refunded: invoice.refunded,
  paidAt: invoice.paidAt,
  ref: invoice.ref,
  viewUrl: invoice.ref ? invoiceDocumentPath(invoice.ref, 'view', account) : null,
  pdfUrl: invoice.ref && invoice.hasPdf ? invoiceDocumentPath(invoice.ref, 'pdf', account) : null,
});

/** The customer of a tenant, or null before its first checkout. */
const customerOf = async (tenant: Tenant): Promise<string | null> =>
  (await getBilling(tenant.tenantId))?.customerId ?? null;

/**
 * What the tenant pays now and next, and with which card. `account`: the slug a former account was
 * read by (`?account=`), carried into its invoice links.
 */
export const billingSummary = async (tenant: Tenant, account?: string) => {
  const customerId = await customerOf(tenant);
  if (!customerId) return { paymentMethod: null, currentInvoice: null, nextInvoice: null };
  const [stacks, card, current, next] = await Promise.all([
    billedStacks(tenant.tenantId),
    viaProcessor(() => defaultPaymentMethod(customerId)),
    viaProcessor(() => latestInvoice(customerId)),
    // A tenant that is leaving has no next invoice (the processor would answer none, or one
    // that is voided when the subscription ends).
    tenant.billingState === 'decommissioning'
      ? Promise.resolve(null)
      : viaProcessor(() => upcomingInvoice(customerId)),
  ]);
  return {
    paymentMethod: card,
    currentInvoice: current ? invoiceView(current, stacks, account) : null,
    nextInvoice: next
      ? {
          invoiceAt: next.invoiceAt,
          ...invoiceView(next, stacks, account),
        }
      : null,
  };
};

/** A page of the tenant's invoices, newest first; `cursor` is the `next` of the page before. */
export const listInvoices = async (
  tenant: Tenant,
  params: {
    limit?: string | undefined;
    cursor?: string | undefined;
    /** The slug a former account was read by (`?account=`), carried into its invoice links. */
    account?: string | undefined;
  },
) => {
  const limit = params.limit === undefined ? INVOICES_PAGE_DEFAULT : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > INVOICES_PAGE_MAX)
    throw refuse(
      'invalid_field',
      { what: `limit must be a whole number from 1 to ${INVOICES_PAGE_MAX}.` },
      { field: 'limit' },
    );
  const start = params.cursor === undefined ? undefined : invoiceCursor.parse(params.cursor);
  if (start === null)
    throw refuse(
      'invalid_field',
      { what: 'cursor must be the `next` of the page before, as it was given.' },
      { field: 'cursor' },
    );
  const customerId = await customerOf(tenant);
  if (!customerId) return { invoices: [], next: null };
  const [stacks, page] = await Promise.all([
    billedStacks(tenant.tenantId),
    viaProcessor(() => invoicePage(customerId, { limit, ...(start ? { start } : {}) })),
  ]);
  return {
    invoices: page.invoices.map((invoice) => invoiceView(invoice, stacks, params.account)),
    next: page.next ? invoiceCursor.format(page.next) : null,
  };
};

const noSuchInvoice = () => refuse('invoice_not_found');

/**
 * Where the tenant's invoice `ref` is shown now (its `view`, the processor's hosted page, or its
 * `pdf`): read from the processor afresh, for a redirect. Only the caller's own invoices are looked
 * at, so another tenant's reference is as unknown as a made-up one (404).
 */
export const invoiceDocumentUrl = async (
  tenant: Tenant,
  params: { ref: string | undefined; document: string | undefined },
): Promise<string> => {
  const document = INVOICE_DOCUMENTS.find((known) => known === params.document);
  if (!document) throw refuse('invoice_document_unknown');
  const customerId = await customerOf(tenant);
  if (!customerId || !params.ref) throw noSuchInvoice();
  const ref = params.ref;
  const addresses = await viaProcessor(() => invoiceAddresses(customerId, ref));
  if (!addresses) throw noSuchInvoice();
  const address = addresses[document];
  if (address) return address;
  throw document === 'pdf' ? refuse('invoice_pdf_not_ready') : noSuchInvoice();
};
