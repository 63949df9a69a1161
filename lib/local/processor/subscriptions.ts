import { prorationDiscounts, prorationLines } from './billing.ts';
import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { bool, type FormObject, int, obj, str, stringMap } from './form.ts';
import { charge, emitInvoiceOutcome, newInvoice, pendingItems, prorationItem } from './invoices.ts';
import { applyItemChanges, itemTerms } from './items.ts';
import { addMonths, type SubscriptionItemRecord, type SubscriptionRecord } from './state.ts';

/**
 * Subscriptions: item changes with prorations, scheduled and immediate cancels, and renewals as
 * the shared clock passes period ends.
 */

export type ProrationBehavior = 'create_prorations' | 'none' | 'always_invoice';

/** `proration_behavior` and `proration_date` of an update or a preview, checked against the period. */
export const prorationParams = (
  subscription: SubscriptionRecord,
  params: FormObject,
  now: number,
  prefix = '',
): { behavior: ProrationBehavior; at: number } => {
  const name = (field: string) => (prefix ? `${prefix}[${field}]` : field);
  const behavior = str(params.proration_behavior) ?? 'create_prorations';
  if (behavior !== 'create_prorations' && behavior !== 'none' && behavior !== 'always_invoice')
    throw new StripeApiError(
      400,
      `Invalid ${name('proration_behavior')}: must be one of create_prorations, none, or always_invoice`,
      { param: name('proration_behavior') },
    );
  const given = int(params.proration_date);
  if (given === undefined)
    return {
      behavior,
      at: Math.min(subscription.currentPeriodEnd, Math.max(subscription.currentPeriodStart, now)),
    };
  const at = given;
  if (!Number.isInteger(at) || at < subscription.currentPeriodStart || at > subscription.currentPeriodEnd)
    throw new StripeApiError(
      400,
      `${name('proration_date')} must be within the current subscription period (${subscription.currentPeriodStart} to ${subscription.currentPeriodEnd}).`,
      { param: name('proration_date') },
    );
  return { behavior, at };
};

/**
 * The prorations of moving `subscription` from its items to `next` at `at`, as invoice items (not
 * stored), each with the discount it is made with: the period's coupon over this change's lines.
 */
export const prorationsFor = (
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  next: readonly SubscriptionItemRecord[],
  at: number,
  newId: (prefix: string) => string,
) => {
  const items = prorationLines(
    itemTerms(subscription.items, ctx.state.prices),
    itemTerms(next, ctx.state.prices),
    { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd },
    at,
  ).map((line) => prorationItem(ctx, subscription, line, newId('ii')));
  const applied = items[0]?.discount;
  const coupon = applied ? (ctx.state.coupons[applied.coupon] ?? null) : null;
  const discounts = prorationDiscounts(
    items.map((item) => item.amount),
    coupon,
  );
  return items.map((item, index) => ({ ...item, discountAmount: discounts[index] ?? 0 }));
};

/** `POST /v1/subscriptions/:id`. */
export const updateSubscription = (ctx: EmulatorContext, id: string, params: FormObject) => {
  const subscription = ctx.state.subscriptions[id] ?? fail(missing('subscription', id));
  if (subscription.status === 'canceled')
    throw new StripeApiError(
      400,
      'A canceled subscription can only update its cancellation_details and metadata.',
    );
  // The current API takes `billing_cycle_anchor[type]`; only `unchanged` is emulated.
  const anchorParam = params.billing_cycle_anchor;
  const anchor =
    anchorParam === undefined
      ? undefined
      : typeof anchorParam === 'string'
        ? anchorParam
        : str(obj(anchorParam).type);
  if (anchorParam !== undefined && anchor !== 'unchanged')
    throw new StripeApiError(400, 'Only billing_cycle_anchor[type]=unchanged is emulated.', {
      param: 'billing_cycle_anchor[type]',
    });
  const { behavior, at } = prorationParams(subscription, params, ctx.nowSeconds());
  const previous = ctx.render.subscription(subscription);
  const next =
    params.items === undefined
      ? undefined
      : applyItemChanges(subscription.items, params.items, ctx.state.prices, () => ({
          id: ctx.newId('si'),
          created: ctx.nowSeconds(),
        }));
  if (next) {
    if (behavior !== 'none') {
      for (const item of prorationsFor(ctx, subscription, next, at, (prefix) => ctx.newId(prefix)))
        ctx.state.invoiceItems[item.id] = item;
    }
    subscription.items = next;
  }
  if (bool(params.cancel_at_period_end) !== undefined) {
    subscription.cancelAtPeriodEnd = bool(params.cancel_at_period_end) ?? false;
    subscription.cancelAt = subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null;
  }
  subscription.metadata = { ...subscription.metadata, ...stringMap(params.metadata) };
  const previousStatus = subscription.status;
  if (behavior === 'always_invoice' && pendingItems(ctx, subscription.id).length > 0) {
    const invoice = newInvoice(
      ctx,
      subscription,
      'subscription_update',
      subscription.currentPeriodStart,
      subscription.currentPeriodEnd,
      { items: [], discountPeriodStart: subscription.currentPeriodStart },
    );
    const paid = charge(ctx, invoice, subscription.defaultPaymentMethod, 'later');
    emitInvoiceOutcome(ctx, invoice, paid);
    if (!paid) subscription.status = 'past_due';
  }
  ctx.emit('customer.subscription.updated', ctx.render.subscription(subscription), {
    items: previous.items,
    ...(previousStatus !== subscription.status ? { status: previousStatus } : {}),
  });
  return ctx.render.subscription(subscription);
};

export const endSubscription = (ctx: EmulatorContext, subscription: SubscriptionRecord, at: number): void => {
  subscription.status = 'canceled';
  subscription.endedAt = at;
  subscription.canceledAt ??= at;
  ctx.emit('customer.subscription.deleted', ctx.render.subscription(subscription));
};

/** `DELETE /v1/subscriptions/:id`. */
export const cancelSubscription = (ctx: EmulatorContext, id: string, params: FormObject) => {
  const subscription = ctx.state.subscriptions[id] ?? fail(missing('subscription', id));
  if (subscription.status === 'canceled')
    throw new StripeApiError(400, `This subscription is already canceled.`, { code: 'resource_missing' });
  // Proration on cancel is not emulated: we cancel with prorate=false, invoice_now=false (refunds).
  for (const flag of ['prorate', 'invoice_now'] as const) {
    if (bool(params[flag]))
      throw new StripeApiError(
        400,
        `${flag}=true is not emulated; this project cancels with ${flag}=false.`,
        {
          param: flag,
        },
      );
  }
  subscription.canceledAt = ctx.nowSeconds();
  subscription.cancellationReason = 'cancellation_requested';
  subscription.cancellationComment = str(obj(params.cancellation_details).comment) ?? null;
  endSubscription(ctx, subscription, ctx.nowSeconds());
  return ctx.render.subscription(subscription);
};

/** `GET /v1/subscriptions`: every status but canceled unless asked for `all` or one status. */
/**
 * Subscription ids by customer, rebuilt whenever the id sequence moved (a subscription is only
 * ever created with a new id): a customer's list no longer walks every subscription.
 */
const byCustomer = new WeakMap<object, { sequence: number; ids: Map<string, string[]> }>();
const subscriptionsOf = (ctx: EmulatorContext, customer: string | undefined): SubscriptionRecord[] => {
  const all = ctx.state.subscriptions;
  if (!customer) return Object.values(all);
  let index = byCustomer.get(all);
  if (!index || index.sequence !== ctx.state.sequence) {
    const ids = new Map<string, string[]>();
    for (const subscription of Object.values(all)) {
      const list = ids.get(subscription.customer);
      if (list) list.push(subscription.id);
      else ids.set(subscription.customer, [subscription.id]);
    }
    index = { sequence: ctx.state.sequence, ids };
    byCustomer.set(all, index);
  }
  return (index.ids.get(customer) ?? [])
    .map((id) => all[id])
    .filter((s): s is SubscriptionRecord => s !== undefined && s.customer === customer);
};

/** The earliest period end of a live subscription or expiry of an open session (epoch seconds). */
export const nextDueAt = (state: EmulatorContext['state']): number => {
  let next = Number.POSITIVE_INFINITY;
  for (const id in state.subscriptions) {
    const s = state.subscriptions[id];
    if (s && s.status !== 'canceled' && s.currentPeriodEnd < next) next = s.currentPeriodEnd;
  }
  for (const id in state.checkoutSessions) {
    const session = state.checkoutSessions[id];
    if (session?.status === 'open' && session.expiresAt < next) next = session.expiresAt;
  }
  return next;
};

export const listSubscriptions = (ctx: EmulatorContext, params: FormObject) => ({
  object: 'list',
  data: subscriptionsOf(ctx, str(params.customer))
    .filter(
      (s) =>
        (!str(params.customer) || s.customer === str(params.customer)) &&
        (str(params.status) === 'all'
          ? true
          : str(params.status)
            ? s.status === str(params.status)
            : s.status !== 'canceled'),
    )
    .sort((a, b) => b.created - a.created)
    .map((s) => ctx.render.subscription(s)),
  has_more: false,
  url: '/v1/subscriptions',
});

/** Bills every subscription whose period ended by now (at the period boundary, as a test clock does). */
export const renewDue = (ctx: EmulatorContext): void => {
  const now = ctx.nowSeconds();
  for (const subscription of Object.values(ctx.state.subscriptions)) {
    while (subscription.status !== 'canceled' && subscription.currentPeriodEnd <= now) {
      if (subscription.cancelAtPeriodEnd) {
        endSubscription(ctx, subscription, subscription.currentPeriodEnd);
        break;
      }
      const previous = { status: subscription.status };
      subscription.currentPeriodStart = subscription.currentPeriodEnd;
      subscription.currentPeriodEnd = addMonths(subscription.currentPeriodStart, 1);
      const invoice = newInvoice(
        ctx,
        subscription,
        'subscription_cycle',
        subscription.currentPeriodStart,
        subscription.currentPeriodEnd,
        { created: subscription.currentPeriodStart },
      );
      const paid = charge(ctx, invoice, subscription.defaultPaymentMethod, 'later');
      emitInvoiceOutcome(ctx, invoice, paid);
      if (!paid) subscription.status = 'past_due';
      ctx.emit(
        'customer.subscription.updated',
        ctx.render.subscription(subscription),
        previous.status !== subscription.status ? previous : {},
      );
    }
  }
};
