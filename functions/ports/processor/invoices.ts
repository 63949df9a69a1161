import type Stripe from 'stripe';
import { call, iso } from './client.ts';

/** The subscription's open (unpaid, not void) invoices: id and when each was created. */
const openInvoices = async (subscriptionId: string): Promise<{ id: string; createdAt: string }[]> => {
  const invoices = await call((stripe, options) =>
    stripe.invoices.list({ subscription: subscriptionId, status: 'open', limit: 100 }, options),
  );
  return invoices.data.flatMap((invoice) =>
    invoice.id ? [{ id: invoice.id, createdAt: iso(invoice.created) ?? new Date(0).toISOString() }] : [],
  );
};

/** When the payment that the subscription still owes failed: its earliest open invoice, if any. */
export const failedPaymentAt = async (subscriptionId: string): Promise<string | null> =>
  (await openInvoices(subscriptionId)).map((invoice) => invoice.createdAt).sort()[0] ?? null;

/** Voids every open invoice of a subscription so no period after leaving can be paid. Answers how many. */
export const voidOpenInvoices = async (subscriptionId: string): Promise<number> => {
  const open = await openInvoices(subscriptionId);
  for (const invoice of open) {
    await call((stripe, options) =>
      stripe.invoices.voidInvoice(invoice.id, {}, { ...options, idempotencyKey: `void:${invoice.id}` }),
    );
  }
  return open.length;
};

/** A pending proration item: its gross amount, and its net after the discount it was made with. */
interface PendingProration {
  id: string;
  amount: number;
  /** After the discount, before tax: the basis an estimate's `adjustment` is given on. */
  net: number;
  currency: string;
  periodStart: number;
}

/**
 * A pending proration's amount after its discount: `net_amount` (set on items that are not
 * discountable, as prorations are), else the amount less the discount amounts it was made with.
 * With itemized proration discounts `amount` is gross; with included ones it is already net and
 * the discount amounts are 0: either way this is the net.
 */
const netOfItem = (item: Stripe.InvoiceItem): number =>
  typeof item.net_amount === 'number'
    ? item.net_amount
    : item.amount - (item.proration_details?.discount_amounts ?? []).reduce((t, d) => t + d.amount, 0);

/** The proration invoice items of `subscriptionId` pending on its next invoice (not yet invoiced). */
export const pendingProrations = async (
  customer: string,
  subscriptionId: string,
): Promise<PendingProration[]> => {
  const found: PendingProration[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await call((stripe, options) =>
      stripe.invoiceItems.list(
        { customer, pending: true, limit: 100, ...(startingAfter ? { starting_after: startingAfter } : {}) },
        options,
      ),
    );
    for (const item of page.data) {
      if (item.parent?.subscription_details?.subscription !== subscriptionId || !item.proration) continue;
      found.push({
        id: item.id,
        amount: item.amount,
        net: netOfItem(item),
        currency: item.currency,
        periodStart: item.period.start,
      });
    }
    const last = page.data.at(-1);
    if (!page.has_more || !last) return found;
    startingAfter = last.id;
  }
};
