import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { type FormObject, obj, str } from './form.ts';
import { composeInvoice, pendingItems, transientId } from './invoices.ts';
import { applyItemChanges } from './items.ts';
import { addMonths, type SubscriptionRecord } from './state.ts';
import { prorationParams, prorationsFor } from './subscriptions.ts';

/**
 * `POST /v1/invoices/create_preview`: the invoice a subscription would get next, with the changes
 * of `subscription_details` applied (its prorations as pending items, the next period on the new
 * items), discount, tax and customer balance included. Nothing is stored: no state changes.
 */
export const createPreview = (ctx: EmulatorContext, params: FormObject) => {
  const { state } = ctx;
  const subscriptionId = str(params.subscription);
  const customerId = str(params.customer);
  if (!subscriptionId && !customerId)
    throw new StripeApiError(400, 'Missing required param: customer or subscription.', {
      param: 'subscription',
    });
  if (customerId && !state.customers[customerId]) throw missing('customer', customerId, 'customer');
  const subscription: SubscriptionRecord | undefined = subscriptionId
    ? (state.subscriptions[subscriptionId] ?? fail(missing('subscription', subscriptionId, 'subscription')))
    : Object.values(state.subscriptions)
        .filter((s) => s.customer === customerId && s.status !== 'canceled')
        .sort((a, b) => b.created - a.created)[0];
  const none = () =>
    new StripeApiError(400, `No upcoming invoices for customer: ${customerId ?? subscription?.customer}`, {
      code: 'invoice_upcoming_none',
    });
  if (!subscription || subscription.status === 'canceled') throw none();
  if (customerId && subscription.customer !== customerId)
    throw new StripeApiError(400, 'The subscription does not belong to this customer.', {
      param: 'subscription',
    });
  const details = obj(params.subscription_details);
  const now = ctx.nowSeconds();
  const { behavior, at } = prorationParams(subscription, details, now, 'subscription_details');
  const next =
    details.items === undefined
      ? subscription.items
      : applyItemChanges(
          subscription.items,
          details.items,
          state.prices,
          () => ({ id: transientId('si'), created: now }),
          'subscription_details[items]',
        );
  const prorations = behavior === 'none' ? [] : prorationsFor(ctx, subscription, next, at, transientId);
  const pending = [...pendingItems(ctx, subscription.id), ...prorations];
  const immediate = behavior === 'always_invoice' && prorations.length > 0;
  if (!immediate && subscription.cancelAtPeriodEnd) throw none();
  const ids = { invoice: transientId('upcoming_in'), line: () => transientId('il_tmp') };
  const record = immediate
    ? composeInvoice(
        ctx,
        {
          subscription,
          reason: 'subscription_update',
          items: [],
          pending,
          periodStart: subscription.currentPeriodStart,
          periodEnd: subscription.currentPeriodEnd,
          created: now,
        },
        ids,
      )
    : composeInvoice(
        ctx,
        {
          subscription,
          reason: 'subscription_cycle',
          items: next,
          pending,
          periodStart: subscription.currentPeriodEnd,
          periodEnd: addMonths(subscription.currentPeriodEnd, 1),
          created: subscription.currentPeriodEnd,
        },
        ids,
      );
  record.status = 'draft';
  const rendered = ctx.render.invoice(record);
  return {
    ...rendered,
    number: null,
    hosted_invoice_url: null,
    ending_balance: null,
    webhooks_delivered_at: null,
    status_transitions: { ...rendered.status_transitions, finalized_at: null },
  };
};
