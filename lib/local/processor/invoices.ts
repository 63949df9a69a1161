import { randomBytes } from 'node:crypto';
import { invoiceTotals, type ProrationLine, taxRateFor } from './billing.ts';
import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { type FormObject, type FormValue, int, obj, str } from './form.ts';
import {
  type AppliedDiscount,
  addMonths,
  type InvoiceItemRecord,
  type InvoiceLine,
  type InvoiceRecord,
  type SubscriptionItemRecord,
  type SubscriptionRecord,
} from './state.ts';

/**
 * Invoices and invoice items: composing an invoice from a subscription's items and its pending
 * invoice items (amounts from billing.ts), charging it, the customer balance, voiding, lists.
 */

const money = (minor: number) => `$${(Math.abs(minor) / 100).toFixed(2)}`;
const day = (epochSeconds: number) =>
  new Date(epochSeconds * 1000).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** Does a subscription's discount still apply to the period starting at `periodStart`? */
export const discountApplies = (
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  periodStart: number,
): AppliedDiscount | null => {
  const discount = subscription.discount;
  if (!discount) return null;
  const coupon = ctx.state.coupons[discount.coupon];
  if (!coupon) return null;
  if (coupon.duration === 'forever') return discount;
  if (coupon.duration === 'once') return periodStart === subscription.startDate ? discount : null;
  return periodStart < addMonths(discount.start, coupon.durationInMonths ?? 0) ? discount : null;
};

/** The automatic-tax rate (percent) for a customer, 0 when automatic tax is off. */
export const taxRateOf = (ctx: EmulatorContext, customerId: string, automaticTax: boolean): number =>
  automaticTax ? taxRateFor(ctx.taxRates, ctx.state.customers[customerId]?.country) : 0;

/** A proration as a pending invoice item of `subscription` (not stored). */
export const prorationItem = (
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  line: ProrationLine,
  id: string,
): InvoiceItemRecord => {
  const product = ctx.state.prices[line.price]?.product;
  const name = (product ? ctx.state.products[product]?.name : undefined) ?? 'Plan';
  return {
    id,
    customer: subscription.customer,
    subscription: subscription.id,
    subscriptionItem: line.item,
    amount: line.amount,
    description: `${line.kind === 'credit' ? 'Unused' : 'Remaining'} time on ${line.quantity} × ${name} after ${day(line.periodStart)}`,
    price: line.price,
    quantity: line.quantity,
    periodStart: line.periodStart,
    periodEnd: line.periodEnd,
    proration: true,
    invoice: null,
    created: ctx.nowSeconds(),
    // The change happens in the current period: its discount (a promotion) comes off this line too,
    // whichever invoice takes it.
    discount: discountApplies(ctx, subscription, subscription.currentPeriodStart),
  };
};

export interface InvoiceDraft {
  subscription: SubscriptionRecord;
  reason: InvoiceRecord['billingReason'];
  /** The items billed for the period (none: an invoice of pending items only). */
  items: readonly SubscriptionItemRecord[];
  /** Pending invoice items it takes in. */
  pending: readonly InvoiceItemRecord[];
  periodStart: number;
  periodEnd: number;
  /** Whose period's discount applies (defaults to periodStart). */
  discountPeriodStart?: number;
  created: number;
}

/**
 * An invoice composed from a draft, reading the state and changing nothing: lines for the items
 * (the full period) and the pending items, the discount, tax and the customer balance.
 */
export const composeInvoice = (
  ctx: EmulatorContext,
  draft: InvoiceDraft,
  ids: { invoice: string; line: () => string },
): InvoiceRecord => {
  const { state } = ctx;
  const { subscription } = draft;
  const lines: InvoiceLine[] = draft.items.map((item) => {
    const price = state.prices[item.price];
    const product = price ? state.products[price.product] : undefined;
    return {
      id: ids.line(),
      description: `${item.quantity} × ${product?.name ?? 'Plan'} (at ${money(price?.unitAmount ?? 0)} / month)`,
      amount: (price?.unitAmount ?? 0) * item.quantity,
      quantity: item.quantity,
      price: item.price,
      subscriptionItem: item.id,
      periodStart: draft.periodStart,
      periodEnd: draft.periodEnd,
      proration: false,
      invoiceItem: null,
    };
  });
  for (const pending of draft.pending) {
    lines.push({
      id: ids.line(),
      description: pending.description,
      amount: pending.amount,
      quantity: pending.quantity,
      price: pending.price,
      subscriptionItem: pending.subscriptionItem ?? null,
      periodStart: pending.periodStart,
      periodEnd: pending.periodEnd,
      proration: pending.proration,
      invoiceItem: pending.id,
    });
  }
  const discount = discountApplies(ctx, subscription, draft.discountPeriodStart ?? draft.periodStart);
  const coupon = discount ? (state.coupons[discount.coupon] ?? null) : null;
  const taxRate = taxRateOf(ctx, subscription.customer, subscription.automaticTax);
  // A pending item keeps the discount it was made under (undefined: the invoice's).
  const couponOf = (applied: AppliedDiscount | null) =>
    applied ? (state.coupons[applied.coupon] ?? null) : null;
  const lineCoupons = [
    ...draft.items.map(() => undefined),
    ...draft.pending.map((item) => (item.discount === undefined ? undefined : couponOf(item.discount))),
  ];
  const shownDiscount =
    (coupon ? discount : null) ??
    draft.pending.find((item) => item.discount && couponOf(item.discount))?.discount ??
    null;
  // A proration keeps the discount worked out when it was made (absent in older state).
  const fixedDiscounts = [
    ...draft.items.map(() => undefined),
    ...draft.pending.map((item) => item.discountAmount),
  ];
  const totals = invoiceTotals({
    amounts: lines.map((line) => line.amount),
    coupon,
    lineCoupons,
    fixedDiscounts,
    taxRatePercent: taxRate,
    startingBalance: state.customers[subscription.customer]?.balance ?? 0,
  });
  lines.forEach((line, index) => {
    line.discountAmount = totals.lineDiscounts[index] ?? 0;
    line.tax = totals.lineTaxes[index] ?? 0;
  });
  return {
    id: ids.invoice,
    customer: subscription.customer,
    subscription: subscription.id,
    billingReason: draft.reason,
    status: 'open',
    lines,
    subtotal: totals.subtotal,
    discountAmount: totals.discount,
    discount: totals.discount !== 0 ? shownDiscount : coupon ? discount : null,
    tax: totals.tax,
    total: totals.total,
    amountDue: totals.amountDue,
    startingBalance: totals.startingBalance,
    endingBalance: totals.endingBalance,
    automaticTax: subscription.automaticTax,
    taxRate,
    amountPaid: 0,
    attemptCount: 0,
    periodStart: draft.periodStart,
    periodEnd: draft.periodEnd,
    created: draft.created,
    paidAt: null,
    paymentIntent: null,
    number: `${subscription.customer.slice(-6).toUpperCase()}-${String(Object.keys(state.invoices).length + 1).padStart(4, '0')}`,
    subscriptionMetadata: { ...subscription.metadata },
  };
};

/** The pending invoice items of a subscription, oldest first. */
export const pendingItems = (ctx: EmulatorContext, subscriptionId: string): InvoiceItemRecord[] =>
  Object.values(ctx.state.invoiceItems)
    .filter((item) => item.invoice === null && item.subscription === subscriptionId)
    .sort((a, b) => a.created - b.created);

/**
 * Creates (finalizes) an invoice: the subscription's items for the period plus its pending
 * invoice items, which it takes; the customer balance moves to the invoice's ending balance.
 */
export const newInvoice = (
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  reason: InvoiceRecord['billingReason'],
  periodStart: number,
  periodEnd: number,
  options: { created?: number; items?: readonly SubscriptionItemRecord[]; discountPeriodStart?: number } = {},
): InvoiceRecord => {
  const id = ctx.newId('in');
  const pending = pendingItems(ctx, subscription.id);
  const invoice = composeInvoice(
    ctx,
    {
      subscription,
      reason,
      items: options.items ?? subscription.items,
      pending,
      periodStart,
      periodEnd,
      created: options.created ?? ctx.nowSeconds(),
      ...(options.discountPeriodStart !== undefined
        ? { discountPeriodStart: options.discountPeriodStart }
        : {}),
    },
    { invoice: id, line: () => ctx.newId('il') },
  );
  for (const item of pending) item.invoice = id;
  const customer = ctx.state.customers[subscription.customer];
  if (customer && invoice.endingBalance !== undefined && invoice.endingBalance !== null)
    customer.balance = invoice.endingBalance;
  ctx.state.invoices[id] = invoice;
  subscription.latestInvoice = id;
  return invoice;
};

/** What an invoice charges: its amount due (older state: its total). */
export const amountDueOf = (invoice: InvoiceRecord): number => invoice.amountDue ?? invoice.total;

/** Charges an invoice's amount due with a payment method; answers whether it is paid. */
export const charge = (
  ctx: EmulatorContext,
  invoice: InvoiceRecord,
  paymentMethodId: string | null,
  phase: 'checkout' | 'later',
): boolean => {
  const { state } = ctx;
  const customer = state.customers[invoice.customer];
  const due = amountDueOf(invoice);
  invoice.attemptCount += 1;
  if (due <= 0) {
    invoice.status = 'paid';
    invoice.paidAt = ctx.nowSeconds();
    return true;
  }
  const method = paymentMethodId ? state.paymentMethods[paymentMethodId] : undefined;
  const succeeds =
    method !== undefined &&
    (method.behavior === 'succeeds' || (method.behavior === 'fails_later' && phase === 'checkout'));
  const intentId = invoice.paymentIntent ?? ctx.newId('pi');
  invoice.paymentIntent = intentId;
  state.paymentIntents[intentId] = {
    id: intentId,
    amount: due,
    amountRefunded: 0,
    customer: customer?.id ?? invoice.customer,
    paymentMethod: method?.id ?? null,
    status: succeeds ? 'succeeded' : 'requires_payment_method',
    invoice: invoice.id,
    created: ctx.nowSeconds(),
  };
  const paymentId =
    Object.values(state.invoicePayments).find((p) => p.invoice === invoice.id)?.id ?? ctx.newId('inpay');
  state.invoicePayments[paymentId] = {
    id: paymentId,
    invoice: invoice.id,
    paymentIntent: intentId,
    amount: due,
    status: succeeds ? 'paid' : 'open',
    created: state.invoicePayments[paymentId]?.created ?? ctx.nowSeconds(),
    paidAt: succeeds ? ctx.nowSeconds() : null,
  };
  if (succeeds) {
    invoice.status = 'paid';
    invoice.amountPaid = due;
    invoice.paidAt = ctx.nowSeconds();
  }
  return succeeds;
};

export const emitInvoiceOutcome = (ctx: EmulatorContext, invoice: InvoiceRecord, paid: boolean): void => {
  ctx.emit('invoice.created', ctx.render.invoice(invoice));
  ctx.emit('invoice.finalized', ctx.render.invoice(invoice));
  if (paid) {
    ctx.emit('invoice.paid', ctx.render.invoice(invoice));
    ctx.emit('invoice.payment_succeeded', ctx.render.invoice(invoice));
  } else {
    ctx.emit('invoice.payment_failed', ctx.render.invoice(invoice));
  }
};

/** `POST /v1/invoices/:id/void`: an open invoice is voided; credit it used goes back to the balance. */
export const voidInvoice = (ctx: EmulatorContext, id: string) => {
  const invoice = ctx.state.invoices[id] ?? fail(missing('invoice', id));
  if (invoice.status !== 'open' && invoice.status !== 'uncollectible')
    throw new StripeApiError(400, `You can only void invoices with a status of open or uncollectible.`, {
      code: 'invoice_not_open',
    });
  invoice.status = 'void';
  for (const payment of Object.values(ctx.state.invoicePayments))
    if (payment.invoice === id && payment.status === 'open') payment.status = 'canceled';
  const customer = ctx.state.customers[invoice.customer];
  if (customer && typeof invoice.endingBalance === 'number')
    customer.balance = (customer.balance ?? 0) + (invoice.startingBalance ?? 0) - invoice.endingBalance;
  ctx.emit('invoice.voided', ctx.render.invoice(invoice));
  return ctx.render.invoice(invoice);
};

const listOf = <T>(data: T[], url: string) => ({ object: 'list', data, has_more: false, url });

/** A `created` filter (`created=N` or `created[gt|gte|lt|lte]=N`), as Stripe's lists take it. */
const createdMatches = (created: number, filter: FormValue | undefined): boolean => {
  if (filter === undefined) return true;
  if (typeof filter === 'string') return created === Number(filter);
  const range = obj(filter);
  const bound = (name: string) => (str(range[name]) === undefined ? undefined : Number(str(range[name])));
  const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
  return (
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte)
  );
};

/**
 * `GET /v1/invoices`: by subscription, customer, status and `created`, newest first (the order
 * they were made in within a second), `limit` (default 10, as Stripe's) and `starting_after`.
 */
export const listInvoices = (ctx: EmulatorContext, params: FormObject) => {
  const order = Object.keys(ctx.state.invoices);
  const all = Object.values(ctx.state.invoices)
    .filter(
      (i) =>
        (!str(params.subscription) || i.subscription === str(params.subscription)) &&
        (!str(params.customer) || i.customer === str(params.customer)) &&
        (!str(params.status) || i.status === str(params.status)) &&
        createdMatches(i.created, params.created),
    )
    .sort((a, b) => b.created - a.created || order.indexOf(b.id) - order.indexOf(a.id));
  const after = str(params.starting_after);
  const from = after ? all.findIndex((i) => i.id === after) + 1 : 0;
  if (after && from === 0) throw missing('invoice', after, 'starting_after');
  const limit = Math.min(100, Math.max(1, int(params.limit) ?? 10));
  const page = all.slice(from, from + limit);
  return {
    ...listOf(
      page.map((i) => ctx.render.invoice(i)),
      '/v1/invoices',
    ),
    has_more: from + limit < all.length,
  };
};

/** `GET /v1/invoiceitems`: by customer, invoice, and `pending` (true: not yet on an invoice). */
export const listInvoiceItems = (ctx: EmulatorContext, params: FormObject) => {
  const pending = str(params.pending);
  return listOf(
    Object.values(ctx.state.invoiceItems)
      .filter(
        (i) =>
          (!str(params.customer) || i.customer === str(params.customer)) &&
          (!str(params.invoice) || i.invoice === str(params.invoice)) &&
          (pending === undefined || (pending === 'true') === (i.invoice === null)),
      )
      .sort((a, b) => b.created - a.created)
      .map((i) => ctx.render.invoiceItem(i)),
    '/v1/invoiceitems',
  );
};

export const listInvoicePayments = (ctx: EmulatorContext, params: FormObject) => {
  const invoice = str(params.invoice);
  return listOf(
    Object.values(ctx.state.invoicePayments)
      .filter((p) => !invoice || p.invoice === invoice)
      .map((p) => ctx.render.invoicePayment(p)),
    '/v1/invoice_payments',
  );
};

/** Ids for objects that are answered but not kept (previews): they do not use the state's sequence. */
export const transientId = (prefix: string): string =>
  `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
