import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { bool, type FormObject, obj, str, stringMap } from './form.ts';
import { charge } from './invoices.ts';
import { CARD_MESSAGES, cardBehavior } from './state.ts';
import { endSubscription } from './subscriptions.ts';

/** The Billing Portal: configurations, sessions, and what its hosted page does. */

export const createPortalConfiguration = (ctx: EmulatorContext, params: FormObject) => {
  const features = obj(params.features);
  const id = ctx.newId('bpc');
  const cancel = obj(features.subscription_cancel);
  const mode = str(cancel.mode) ?? 'at_period_end';
  if (mode !== 'immediately' && mode !== 'at_period_end')
    throw new StripeApiError(400, 'Invalid subscription_cancel mode.', {
      param: 'features[subscription_cancel][mode]',
    });
  ctx.state.portalConfigurations[id] = {
    id,
    paymentMethodUpdate: bool(obj(features.payment_method_update).enabled) ?? false,
    subscriptionCancel: bool(cancel.enabled) ?? false,
    cancelMode: mode,
    subscriptionUpdate: bool(obj(features.subscription_update).enabled) ?? false,
    invoiceHistory: bool(obj(features.invoice_history).enabled) ?? false,
    defaultReturnUrl: str(params.default_return_url) ?? null,
    metadata: stringMap(params.metadata),
    isDefault: Object.keys(ctx.state.portalConfigurations).length === 0,
    created: ctx.nowSeconds(),
  };
  return ctx.render.portalConfiguration(ctx.state.portalConfigurations[id] as never);
};

export const updatePortalConfiguration = (ctx: EmulatorContext, id: string, params: FormObject) => {
  const configuration =
    ctx.state.portalConfigurations[id] ?? fail(missing('billing_portal.configuration', id));
  const features = obj(params.features);
  const cancel = obj(features.subscription_cancel);
  const mode = str(cancel.mode);
  if (mode !== undefined && mode !== 'immediately' && mode !== 'at_period_end')
    throw new StripeApiError(400, 'Invalid subscription_cancel mode.', {
      param: 'features[subscription_cancel][mode]',
    });
  configuration.paymentMethodUpdate =
    bool(obj(features.payment_method_update).enabled) ?? configuration.paymentMethodUpdate;
  configuration.subscriptionCancel = bool(cancel.enabled) ?? configuration.subscriptionCancel;
  configuration.cancelMode = mode ?? configuration.cancelMode;
  configuration.subscriptionUpdate =
    bool(obj(features.subscription_update).enabled) ?? configuration.subscriptionUpdate;
  configuration.invoiceHistory = bool(obj(features.invoice_history).enabled) ?? configuration.invoiceHistory;
  configuration.metadata = { ...configuration.metadata, ...stringMap(params.metadata) };
  return ctx.render.portalConfiguration(configuration);
};

export const listPortalConfigurations = (ctx: EmulatorContext) => ({
  object: 'list',
  data: Object.values(ctx.state.portalConfigurations).map((c) => ctx.render.portalConfiguration(c)),
  has_more: false,
  url: '/v1/billing_portal/configurations',
});

export const createPortalSession = (ctx: EmulatorContext, params: FormObject) => {
  const { state } = ctx;
  const customer = str(params.customer);
  if (!customer || !state.customers[customer]) throw missing('customer', customer ?? '', 'customer');
  const configuration =
    str(params.configuration) ?? Object.values(state.portalConfigurations).find((c) => c.isDefault)?.id;
  if (!configuration || !state.portalConfigurations[configuration])
    throw missing('billing_portal.configuration', configuration ?? '', 'configuration');
  const id = ctx.newId('bps');
  state.portalSessions[id] = {
    id,
    customer,
    configuration,
    returnUrl: str(params.return_url) ?? state.portalConfigurations[configuration]?.defaultReturnUrl ?? null,
    created: ctx.nowSeconds(),
  };
  return ctx.render.portalSession(state.portalSessions[id] as never);
};

/** The portal's "update payment method": a new default card, then open invoices are retried. */
export const updatePaymentMethod = (
  ctx: EmulatorContext,
  customerId: string,
  cardNumber: string,
): string | undefined => {
  const { state } = ctx;
  const behavior = cardBehavior(cardNumber);
  if (behavior === 'declined' || behavior === 'invalid') return CARD_MESSAGES[behavior];
  const customer = state.customers[customerId];
  if (!customer) throw missing('customer', customerId);
  const id = ctx.newId('pm');
  const digits = cardNumber.replace(/\D/g, '');
  state.paymentMethods[id] = {
    id,
    customer: customerId,
    last4: digits.slice(-4),
    brand: 'visa',
    behavior,
    created: ctx.nowSeconds(),
  };
  customer.defaultPaymentMethod = id;
  ctx.emit('payment_method.attached', ctx.render.paymentMethod(state.paymentMethods[id] as never));
  for (const subscription of Object.values(state.subscriptions).filter(
    (s) => s.customer === customerId && s.status !== 'canceled',
  )) {
    subscription.defaultPaymentMethod = id;
    const open = Object.values(state.invoices).filter(
      (i) => i.subscription === subscription.id && i.status === 'open',
    );
    let allPaid = true;
    for (const invoice of open) {
      const paid = charge(ctx, invoice, id, 'later');
      allPaid &&= paid;
      ctx.emit(paid ? 'invoice.paid' : 'invoice.payment_failed', ctx.render.invoice(invoice));
    }
    if (allPaid && subscription.status === 'past_due') {
      subscription.status = 'active';
      ctx.emit('customer.subscription.updated', ctx.render.subscription(subscription), {
        status: 'past_due',
      });
    }
  }
  ctx.save();
  return undefined;
};

/** The portal's "cancel subscription", in the configuration's mode. */
export const cancelFromPortal = (ctx: EmulatorContext, customerId: string, configurationId: string): void => {
  const configuration = ctx.state.portalConfigurations[configurationId];
  if (!configuration?.subscriptionCancel)
    throw new StripeApiError(400, 'Cancellation is not enabled in this portal.');
  const now = ctx.nowSeconds();
  for (const subscription of Object.values(ctx.state.subscriptions).filter(
    (s) => s.customer === customerId && s.status !== 'canceled',
  )) {
    subscription.canceledAt = now;
    subscription.cancellationReason = 'cancellation_requested';
    if (configuration.cancelMode === 'immediately') {
      endSubscription(ctx, subscription, now);
    } else {
      subscription.cancelAtPeriodEnd = true;
      subscription.cancelAt = subscription.currentPeriodEnd;
      ctx.emit('customer.subscription.updated', ctx.render.subscription(subscription), {
        cancel_at_period_end: false,
      });
    }
  }
  ctx.save();
};
