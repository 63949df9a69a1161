import type Stripe from 'stripe';
import { type InvoiceDocument, invoiceRef } from '#core/invoices.ts';
import { isPlanValue, type PlanValue } from '#core/plans.ts';
import { call, iso } from './client.ts';

// ---------------------------------------------------------------------------------------------
// What a tenant pays and paid, as the processor knows it: its invoices (with the refunds made on
// their payments), the upcoming invoice and the payment method on file. Domain facts only: no
// processor id leaves this module. An invoice is named by our reference (functions/core/invoices.ts,
// invoiceRef); its hosted page's and PDF's addresses (the processor's, with its id in them) leave
// only through invoiceAddresses, read fresh for one redirect, never into a body.
// ---------------------------------------------------------------------------------------------

/** One line of an invoice (minor units): a Plan's Stacks for the period, or a proration. */
export interface InvoiceLineFact {
  /** The Plan of the line's price (from the price's metadata; null: no Plan's price). */
  plan: PlanValue | null;
  quantity: number;
  /** Before the discount; negative: a credit. */
  amount: number;
  discount: number;
  tax: number;
  /** A proration (a Plan Change's or an added Stack's share of a period), not a whole period. */
  proration: boolean;
  periodStart: string;
  periodEnd: string;
}

/** An invoice as a tenant may read it. */
export interface InvoiceFact {
  /** The number printed on the invoice (not an id: the tenant quotes it to support). */
  number: string | null;
  createdAt: string;
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  currency: string;
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
  /** Customer credit used on it (total less what was asked of the card). */
  creditApplied: number;
  amountDue: number;
  amountPaid: number;
  /** Refunded of what was paid for it. */
  refunded: number;
  paidAt: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  /** Our reference (invoiceRef): null for the upcoming invoice, which is not issued yet. */
  ref: string | null;
  /** The processor has a PDF of it (only issued invoices have one). */
  hasPdf: boolean;
  lines: InvoiceLineFact[];
}

/** The card on file as the processor reports it: display only. */
export interface PaymentMethodFact {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Plans of prices already read: a price's `metadata.plan` never changes. */
const planOfPriceCache = new Map<string, PlanValue | null>();

const planOfPrice = async (priceId: string): Promise<PlanValue | null> => {
  const known = planOfPriceCache.get(priceId);
  if (known !== undefined) return known;
  const price = await call((stripe, options) => stripe.prices.retrieve(priceId, {}, options));
  const plan = isPlanValue(price.metadata?.plan) ? price.metadata.plan : null;
  planOfPriceCache.set(priceId, plan);
  return plan;
};

const priceIdOf = (line: Stripe.InvoiceLineItem): string | null => {
  const price = line.pricing?.price_details?.price;
  return typeof price === 'string' ? price : (price?.id ?? null);
};

const prorationOf = (line: Stripe.InvoiceLineItem): boolean => {
  const parent = line.parent as {
    subscription_item_details?: { proration?: boolean } | null;
    invoice_item_details?: { proration?: boolean } | null;
  } | null;
  return Boolean(parent?.subscription_item_details?.proration ?? parent?.invoice_item_details?.proration);
};

const sum = (amounts: { amount: number }[] | null | undefined) =>
  (amounts ?? []).reduce((total, entry) => total + entry.amount, 0);

const linesOf = async (invoice: Stripe.Invoice): Promise<InvoiceLineFact[]> => {
  const lines: InvoiceLineFact[] = [];
  for (const line of invoice.lines.data) {
    const priceId = priceIdOf(line);
    lines.push({
      plan: priceId ? await planOfPrice(priceId) : null,
      quantity: line.quantity ?? 1,
      amount: line.amount,
      discount: sum(line.discount_amounts),
      tax: sum(line.taxes),
      proration: prorationOf(line),
      periodStart: iso(line.period.start) ?? '',
      periodEnd: iso(line.period.end) ?? '',
    });
  }
  return lines;
};

/** What was refunded of an invoice's successful payments. */
const refundedOf = async (invoice: Stripe.Invoice): Promise<number> => {
  if (!invoice.id || invoice.amount_paid <= 0) return 0;
  const invoiceId = invoice.id;
  const payments = await call((stripe, options) =>
    stripe.invoicePayments.list({ invoice: invoiceId, limit: 100 }, options),
  );
  let refunded = 0;
  for (const payment of payments.data) {
    const intent = payment.payment.payment_intent;
    const intentId = typeof intent === 'string' ? intent : intent?.id;
    if (payment.status !== 'paid' || !intentId) continue;
    const refunds = await call((stripe, options) =>
      stripe.refunds.list({ payment_intent: intentId, limit: 100 }, options),
    );
    refunded += refunds.data
      .filter((refund) => refund.status === 'succeeded' || refund.status === 'pending')
      .reduce((total, refund) => total + refund.amount, 0);
  }
  return refunded;
};

const customerIdOf = (invoice: Stripe.Invoice): string | null =>
  typeof invoice.customer === 'string' ? invoice.customer : (invoice.customer?.id ?? null);

const refOf = (invoice: Stripe.Invoice): string | null => {
  const customerId = customerIdOf(invoice);
  return invoice.id && customerId
    ? invoiceRef.of({ customerId, invoiceId: invoice.id, created: invoice.created })
    : null;
};

const invoiceFactOf = async (invoice: Stripe.Invoice): Promise<InvoiceFact> => ({
  number: invoice.number ?? null,
  createdAt: iso(invoice.created) ?? '',
  status: (invoice.status ?? 'draft') as InvoiceFact['status'],
  currency: invoice.currency,
  subtotal: invoice.subtotal,
  discount: sum(invoice.total_discount_amounts),
  tax: sum(invoice.total_taxes),
  total: invoice.total,
  creditApplied: Math.max(0, invoice.total - invoice.amount_due),
  amountDue: invoice.amount_due,
  amountPaid: invoice.amount_paid,
  refunded: await refundedOf(invoice),
  paidAt: iso(invoice.status_transitions?.paid_at),
  periodStart: iso(invoice.period_start),
  periodEnd: iso(invoice.period_end),
  ref: refOf(invoice),
  hasPdf: Boolean(invoice.invoice_pdf),
  lines: await linesOf(invoice),
});

/**
 * Where a page of invoices starts: after the invoices created at or before `createdAt` that the
 * earlier pages already showed (`shown` of those created in that very second). Ours, no processor id.
 */
export interface InvoicePageStart {
  /** Epoch seconds. */
  created: number;
  shown: number;
}

/**
 * One page of the customer's invoices, newest first (drafts never listed), and where the next page
 * starts (null: this was the last).
 */
export const invoicePage = async (
  customerId: string,
  params: { limit: number; start?: InvoicePageStart },
): Promise<{ invoices: InvoiceFact[]; next: InvoicePageStart | null }> => {
  const skip = params.start?.shown ?? 0;
  const page = await call((stripe, options) =>
    stripe.invoices.list(
      {
        customer: customerId,
        limit: Math.min(100, params.limit + skip),
        ...(params.start ? { created: { lte: params.start.created } } : {}),
      },
      options,
    ),
  );
  // Those of the first second that an earlier page showed come first (newest first).
  const fresh = page.data.filter(
    (invoice, index) => !(index < skip && params.start && invoice.created === params.start.created),
  );
  const listed = fresh.filter((invoice) => invoice.status !== 'draft').slice(0, params.limit);
  const invoices: InvoiceFact[] = [];
  for (const invoice of listed) invoices.push(await invoiceFactOf(invoice));
  const last = listed.at(-1);
  const more = page.has_more || fresh.length > listed.length;
  if (!more || !last) return { invoices, next: null };
  // How many of the last one's second are behind us (drafts too: the next page skips them by count),
  // the previous pages' too when that is the same second.
  const through = fresh.slice(0, fresh.indexOf(last) + 1);
  const sameSecond = through.filter((invoice) => invoice.created === last.created).length;
  const carried = params.start && params.start.created === last.created ? skip : 0;
  return { invoices, next: { created: last.created, shown: sameSecond + carried } };
};

/** The customer's latest invoice that is not a draft or void (what is billed this period), or null. */
export const latestInvoice = async (customerId: string): Promise<InvoiceFact | null> => {
  const page = await call((stripe, options) =>
    stripe.invoices.list({ customer: customerId, limit: 10 }, options),
  );
  const found = page.data.find((invoice) => invoice.status !== 'draft' && invoice.status !== 'void');
  return found ? invoiceFactOf(found) : null;
};

/** The next invoice as the processor previews it (the upcoming invoice), or null when none comes. */
export const upcomingInvoice = async (
  customerId: string,
): Promise<(InvoiceFact & { invoiceAt: string | null }) | null> => {
  const invoice = await call(async (stripe, options) => {
    try {
      return await stripe.invoices.createPreview({ customer: customerId }, options);
    } catch (error) {
      if ((error as { code?: string }).code === 'invoice_upcoming_none') return null;
      throw error;
    }
  });
  if (!invoice) return null;
  const fact = await invoiceFactOf(invoice);
  return {
    ...fact,
    number: null,
    ref: null,
    hasPdf: false,
    invoiceAt: iso(invoice.next_payment_attempt ?? invoice.created),
  };
};

/**
 * The processor's addresses of an issued invoice's hosted page (`view`) and PDF, read now, for the
 * invoice of this customer that `ref` names; null when none of the customer's invoices has that
 * reference (another customer's, or one we never gave). Only the customer's own invoices of the
 * reference's second are read.
 */
export const invoiceAddresses = async (
  customerId: string,
  ref: string,
): Promise<Record<InvoiceDocument, string | null> | null> => {
  const created = invoiceRef.createdOf(ref);
  if (created === null) return null;
  const page = await call((stripe, options) =>
    stripe.invoices.list({ customer: customerId, created, limit: 100 }, options),
  );
  const found = page.data.find(
    (invoice) => invoice.status !== 'draft' && customerIdOf(invoice) === customerId && refOf(invoice) === ref,
  );
  return found ? { view: found.hosted_invoice_url ?? null, pdf: found.invoice_pdf ?? null } : null;
};

/** The customer's default card (what renewals charge), or null when none is on file. */
export const defaultPaymentMethod = async (customerId: string): Promise<PaymentMethodFact | null> => {
  const customer = await call((stripe, options) => stripe.customers.retrieve(customerId, {}, options));
  if (customer.deleted) return null;
  const method = customer.invoice_settings?.default_payment_method;
  const methodId = typeof method === 'string' ? method : method?.id;
  if (!methodId) return null;
  const details = await call((stripe, options) => stripe.paymentMethods.retrieve(methodId, {}, options));
  if (!details.card) return null;
  return {
    brand: details.card.display_brand ?? details.card.brand,
    last4: details.card.last4,
    expMonth: details.card.exp_month,
    expYear: details.card.exp_year,
  };
};
