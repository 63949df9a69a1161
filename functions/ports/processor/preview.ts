import type Stripe from 'stripe';
import type { EstimateFacts } from '#core/estimates.ts';
import { call, iso } from './client.ts';
import { pendingProrations } from './invoices.ts';

/** Where the renewal's lines of a previewed invoice start (the billing-cycle date), if it has any. */
const renewalStart = (lines: { period: { start: number }; parent?: unknown }[]): number | undefined => {
  const starts = lines
    .filter((line) => {
      const parent = line.parent as {
        subscription_item_details?: { proration?: boolean } | null;
        invoice_item_details?: unknown;
      } | null;
      return parent?.subscription_item_details && !parent.subscription_item_details.proration;
    })
    .map((line) => line.period.start);
  return starts.length ? Math.min(...starts) : undefined;
};

/**
 * The processor's estimate of the next invoice with a change applied, as facts in minor units (the
 * shape the rule that words it reads: functions/core/estimates.ts, `EstimateFacts`).
 */
export type InvoiceEstimate = EstimateFacts;
/** One proration line of a change, as the processor priced it on a previewed invoice. */
export type ChangeLineFact = EstimateFacts['changeLines'][number];

type PreviewLine = Stripe.InvoiceLineItem;

/** A previewed line's proration flag and the invoice item behind it, wherever its parent says. */
export const lineParent = (line: PreviewLine): { proration: boolean; invoiceItem: string | null } => {
  const parent = line.parent as {
    subscription_item_details?: { proration?: boolean; invoice_item?: string | null } | null;
    invoice_item_details?: { proration?: boolean; invoice_item?: string | null } | null;
  } | null;
  return {
    proration: Boolean(
      parent?.subscription_item_details?.proration ?? parent?.invoice_item_details?.proration,
    ),
    invoiceItem:
      parent?.subscription_item_details?.invoice_item ?? parent?.invoice_item_details?.invoice_item ?? null,
  };
};

/**
 * A previewed line as a fact: its discount from `discount_amounts` (itemized proration discounts:
 * the amount is gross; included ones: the amount is net and the discount 0, the same net either
 * way) and its tax from `taxes`.
 */
const changeLineOf = (line: PreviewLine): ChangeLineFact => {
  const price = line.pricing?.price_details?.price;
  return {
    priceId: typeof price === 'string' ? price : (price?.id ?? ''),
    quantity: line.quantity ?? 1,
    amount: line.amount,
    discount: (line.discount_amounts ?? []).reduce((t, d) => t + d.amount, 0),
    tax: (line.taxes ?? []).reduce((t, tax) => t + tax.amount, 0),
    periodStart: iso(line.period.start) ?? '',
    periodEnd: iso(line.period.end) ?? '',
  };
};

/**
 * The next invoice as it would be with `items` changed at `prorationDate`, from the processor's
 * `invoices.createPreview` (nothing changes). The caller's key for the estimate must include the
 * items and the proration date, or the estimate and the later change drift apart.
 */
export const previewItemChange = async (params: {
  subscriptionId: string;
  items: { itemId?: string; priceId: string; quantity: number }[];
  prorationDate: Date;
}): Promise<InvoiceEstimate> => {
  const prorationDate = Math.floor(params.prorationDate.getTime() / 1000);
  const invoice = await call((stripe, options) =>
    stripe.invoices.createPreview(
      {
        subscription: params.subscriptionId,
        subscription_details: {
          items: params.items.map((item) =>
            item.itemId
              ? item.quantity === 0
                ? { id: item.itemId, deleted: true }
                : { id: item.itemId, quantity: item.quantity }
              : { price: item.priceId, quantity: item.quantity },
          ),
          proration_behavior: 'create_prorations',
          proration_date: prorationDate,
        },
      },
      options,
    ),
  );
  // Prorations already pending (an added Stack's, an earlier change's) are on the previewed invoice
  // too, with their own invoice item ids: they belong to the next invoice, not to this change.
  const customer = typeof invoice.customer === 'string' ? invoice.customer : invoice.customer?.id;
  const pending = new Set(
    customer ? (await pendingProrations(customer, params.subscriptionId)).map((item) => item.id) : [],
  );
  // This change's own prorations start at the proration date (the processor's recommended filter,
  // and how the commit reads its own); one made in the same second by another change is told apart
  // by being pending already.
  const changeLines = invoice.lines.data
    .filter((line) => {
      const { proration, invoiceItem } = lineParent(line);
      return proration && line.period.start === prorationDate && !(invoiceItem && pending.has(invoiceItem));
    })
    .map(changeLineOf);
  const sum = (amounts: { amount: number }[] | null | undefined) =>
    (amounts ?? []).reduce((t, a) => t + a.amount, 0);
  return {
    currency: invoice.currency,
    subtotal: invoice.subtotal,
    discount: sum(invoice.total_discount_amounts),
    tax: sum(invoice.total_taxes),
    total: invoice.total,
    amountDue: invoice.amount_due,
    adjustment: changeLines.reduce((t, line) => t + line.amount - line.discount, 0),
    adjustmentTax: changeLines.reduce((t, line) => t + line.tax, 0),
    // The renewal's own lines start on the billing-cycle date (the invoice's period_end is the end
    // of the usage period its items were added in, not when it is made).
    invoiceAt: iso(renewalStart(invoice.lines.data) ?? invoice.next_payment_attempt ?? invoice.created),
    changeLines,
  };
};
