import { randomBytes } from 'node:crypto';
import { invoiceTotals } from './billing.ts';
import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { bool, type FormObject, type FormValue, int, list, obj, str, stringMap } from './form.ts';
import { charge, emitInvoiceOutcome, newInvoice, taxRateOf } from './invoices.ts';
import {
  type AppliedDiscount,
  addMonths,
  CARD_MESSAGES,
  type CheckoutSessionRecord,
  cardBehavior,
  type LineItem,
  type SubscriptionRecord,
} from './state.ts';

/** Checkout Sessions: creation (with Stripe's refusals), expiry, and what the hosted page does. */

/** The country the Checkout page proposes when the customer has no address yet (0% tax by default). */
export const DEFAULT_CHECKOUT_COUNTRY = 'US';

/** The amounts of a session as its page shows them: tax by the customer's country when known. */
export const sessionAmounts = (ctx: EmulatorContext, session: CheckoutSessionRecord) => {
  const amounts = session.lineItems.map(
    (item) => (ctx.state.prices[item.price]?.unitAmount ?? 0) * item.quantity,
  );
  const coupon = session.discount ? (ctx.state.coupons[session.discount.coupon] ?? null) : null;
  const totals = invoiceTotals({
    amounts,
    coupon,
    taxRatePercent: taxRateOf(ctx, session.customer, session.automaticTax),
    startingBalance: 0,
  });
  return { subtotal: totals.subtotal, discount: totals.discount, tax: totals.tax };
};

const renderSession = (ctx: EmulatorContext, session: CheckoutSessionRecord) =>
  ctx.render.checkoutSession(session, sessionAmounts(ctx, session));

export const expireSession = (ctx: EmulatorContext, session: CheckoutSessionRecord): void => {
  session.status = 'expired';
  ctx.emit('checkout.session.expired', renderSession(ctx, session));
  ctx.save();
};

/** Expires every open session whose time has passed. */
export const expireDue = (ctx: EmulatorContext): void => {
  const now = ctx.nowSeconds();
  for (const session of Object.values(ctx.state.checkoutSessions)) {
    if (session.status === 'open' && now >= session.expiresAt) expireSession(ctx, session);
  }
};

/** The session if it can still be paid; expires it when its time has passed. */
export const openSession = (ctx: EmulatorContext, sessionId: string): CheckoutSessionRecord => {
  const session = ctx.state.checkoutSessions[sessionId];
  if (!session) throw missing('checkout.session', sessionId);
  if (session.status === 'open' && ctx.nowSeconds() >= session.expiresAt) expireSession(ctx, session);
  if (session.status !== 'open')
    throw new StripeApiError(400, 'This Checkout Session is no longer active.', {
      code: 'checkout_session_inactive',
    });
  return session;
};

/** Whether the page asks for the country: the address typed there is saved to the customer. */
export const asksForCountry = (session: CheckoutSessionRecord): boolean =>
  session.automaticTax && session.customerUpdateAddress === true;

/**
 * Saves the country typed on the page to the customer (`customer_update[address]=auto`); a
 * payment posted without one (a client that skips the field) saves nothing and is taxed at the
 * default rate. Answers a message when it is not a country code.
 */
export const saveCheckoutCountry = (
  ctx: EmulatorContext,
  session: CheckoutSessionRecord,
  country: string | undefined,
): string | undefined => {
  if (!asksForCountry(session) || country === undefined) return undefined;
  const customer = ctx.state.customers[session.customer];
  if (!customer) throw missing('customer', session.customer);
  const code = country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return 'Choose your country.';
  customer.country = code;
  customer.hasAddress = true;
  return undefined;
};

/** What the hosted Checkout page does when the customer pays. */
export const payCheckout = (
  ctx: EmulatorContext,
  sessionId: string,
  cardNumber: string,
  country?: string,
): { ok: true; redirect: string } | { ok: false; message: string } => {
  const { state } = ctx;
  const session = openSession(ctx, sessionId);
  const behavior = cardBehavior(cardNumber);
  if (behavior === 'declined' || behavior === 'invalid')
    return { ok: false, message: CARD_MESSAGES[behavior] };
  const now = ctx.nowSeconds();
  const customer = state.customers[session.customer];
  if (!customer) throw missing('customer', session.customer);
  const problem = saveCheckoutCountry(ctx, session, country);
  if (problem) return { ok: false, message: problem };
  const paymentMethodId = ctx.newId('pm');
  const digits = cardNumber.replace(/\D/g, '');
  state.paymentMethods[paymentMethodId] = {
    id: paymentMethodId,
    customer: customer.id,
    last4: digits.slice(-4),
    brand: digits.startsWith('4') ? 'visa' : 'mastercard',
    behavior,
    created: now,
  };
  customer.defaultPaymentMethod = paymentMethodId;

  const subscriptionId = ctx.newId('sub');
  const subscription: SubscriptionRecord = {
    id: subscriptionId,
    customer: customer.id,
    status: 'active',
    items: session.lineItems.map((item) => ({
      id: ctx.newId('si'),
      price: item.price,
      quantity: item.quantity,
      created: now,
    })),
    created: now,
    startDate: now,
    currentPeriodStart: now,
    currentPeriodEnd: addMonths(now, 1),
    cancelAtPeriodEnd: false,
    cancelAt: null,
    canceledAt: null,
    endedAt: null,
    cancellationReason: null,
    metadata: { ...session.subscriptionMetadata },
    defaultPaymentMethod: paymentMethodId,
    discount: session.discount ? { ...session.discount, start: now } : null,
    latestInvoice: null,
    automaticTax: session.automaticTax,
  };
  state.subscriptions[subscriptionId] = subscription;
  if (session.discount?.promotionCode) {
    const code = state.promotionCodes[session.discount.promotionCode];
    if (code) code.timesRedeemed += 1;
  }
  const invoice = newInvoice(ctx, subscription, 'subscription_create', now, subscription.currentPeriodEnd);
  const paid = charge(ctx, invoice, paymentMethodId, 'checkout');
  session.status = 'complete';
  session.paymentStatus =
    (invoice.amountDue ?? invoice.total) <= 0 ? 'no_payment_required' : paid ? 'paid' : 'unpaid';
  session.subscription = subscriptionId;
  session.invoice = invoice.id;

  ctx.emit(
    'payment_method.attached',
    ctx.render.paymentMethod(state.paymentMethods[paymentMethodId] as never),
  );
  ctx.emit('customer.subscription.created', ctx.render.subscription(subscription));
  emitInvoiceOutcome(ctx, invoice, paid);
  ctx.emit('checkout.session.completed', renderSession(ctx, session));
  ctx.save();
  return { ok: true, redirect: session.successUrl.replace('{CHECKOUT_SESSION_ID}', session.id) };
};

/** Applies a promotion code typed on the Checkout page. */
export const applyPromotionCode = (
  ctx: EmulatorContext,
  sessionId: string,
  code: string,
): string | undefined => {
  const session = openSession(ctx, sessionId);
  if (!session.allowPromotionCodes) return 'This checkout does not accept promotion codes.';
  const promotion = Object.values(ctx.state.promotionCodes).find(
    (p) => p.code.toLowerCase() === code.trim().toLowerCase(),
  );
  if (
    !promotion?.active ||
    (promotion.maxRedemptions !== null && promotion.timesRedeemed >= promotion.maxRedemptions)
  ) {
    return 'This code is invalid.';
  }
  session.discount = { coupon: promotion.coupon, promotionCode: promotion.id };
  ctx.save();
  return undefined;
};

/** `POST /v1/checkout/sessions`. */
export const createCheckoutSession = (ctx: EmulatorContext, params: FormObject) => {
  const { state } = ctx;
  if (str(params.mode) !== 'subscription')
    throw new StripeApiError(400, 'Only mode=subscription is emulated.', { param: 'mode' });
  const successUrl = str(params.success_url);
  if (!successUrl)
    throw new StripeApiError(400, 'Missing required param: success_url.', { param: 'success_url' });
  const customerId = str(params.customer);
  if (!customerId)
    throw new StripeApiError(400, 'The emulator needs an existing customer (customer).', {
      param: 'customer',
    });
  const customer = state.customers[customerId] ?? fail(missing('customer', customerId, 'customer'));
  const lineItems: LineItem[] = list(params.line_items).map((raw, index) => {
    const item = obj(raw as FormValue);
    const price = str(item.price);
    if (!price || !state.prices[price]) throw missing('price', price ?? '', `line_items[${index}][price]`);
    if (!state.prices[price]?.active)
      throw new StripeApiError(400, `The price specified is inactive.`, {
        param: `line_items[${index}][price]`,
      });
    return { price, quantity: int(item.quantity) ?? 1 };
  });
  if (lineItems.length === 0)
    throw new StripeApiError(400, 'Missing required param: line_items.', { param: 'line_items' });
  const prices = new Set<string>();
  for (const item of lineItems) {
    if (prices.has(item.price))
      throw new StripeApiError(
        400,
        `You cannot use the same price (${item.price}) more than once in line_items.`,
        {
          param: 'line_items',
        },
      );
    prices.add(item.price);
  }
  const allowPromotionCodes = bool(params.allow_promotion_codes) ?? false;
  const discounts = list(params.discounts).map((raw) => obj(raw as FormValue));
  if (allowPromotionCodes && discounts.length > 0) {
    throw new StripeApiError(
      400,
      'You may only specify one of these parameters: allow_promotion_codes, discounts.',
      {
        param: 'discounts',
      },
    );
  }
  const automaticTax = bool(obj(params.automatic_tax).enabled) ?? false;
  const customerUpdateAddress = str(obj(params.customer_update).address) === 'auto';
  if (automaticTax && !customer.hasAddress && !customerUpdateAddress) {
    throw new StripeApiError(
      400,
      "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either 'customer_update[address]' to 'auto' or 'customer_update[shipping]' to 'auto' to save the address entered in Checkout to the Customer.",
      { param: 'customer_update[address]' },
    );
  }
  const collection = str(params.payment_method_collection) ?? 'always';
  if (collection !== 'always' && collection !== 'if_required')
    throw new StripeApiError(400, 'Invalid payment_method_collection.', {
      param: 'payment_method_collection',
    });
  const now = ctx.nowSeconds();
  const expiresAt = int(params.expires_at) ?? now + 24 * 3600;
  if (expiresAt < now + 30 * 60 - 5 || expiresAt > now + 24 * 3600) {
    throw new StripeApiError(
      400,
      'The Checkout Session expires_at must be between 30 minutes and 24 hours from now.',
      {
        param: 'expires_at',
      },
    );
  }
  let discount: AppliedDiscount | null = null;
  const [firstDiscount] = discounts;
  if (firstDiscount) {
    const promotionCode = str(firstDiscount.promotion_code);
    const coupon = str(firstDiscount.coupon);
    if (promotionCode) {
      const promotion =
        state.promotionCodes[promotionCode] ??
        fail(missing('promotion_code', promotionCode, 'discounts[0][promotion_code]'));
      discount = { coupon: promotion.coupon, promotionCode };
    } else if (coupon) {
      if (!state.coupons[coupon]) throw missing('coupon', coupon, 'discounts[0][coupon]');
      discount = { coupon, promotionCode: null };
    }
  }
  const id = `cs_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a')}`;
  const session: CheckoutSessionRecord = {
    id,
    customer: customerId,
    mode: 'subscription',
    lineItems,
    allowPromotionCodes,
    discount,
    clientReferenceId: str(params.client_reference_id) ?? null,
    subscriptionMetadata: stringMap(obj(params.subscription_data).metadata),
    metadata: stringMap(params.metadata),
    successUrl,
    cancelUrl: str(params.cancel_url) ?? null,
    expiresAt,
    status: 'open',
    paymentStatus: 'unpaid',
    subscription: null,
    invoice: null,
    automaticTax,
    customerUpdateAddress,
    created: now,
  };
  state.checkoutSessions[id] = session;
  return renderSession(ctx, session);
};

/** `GET /v1/checkout/sessions[/:id]` and `POST /v1/checkout/sessions/:id/expire`. */
export const getCheckoutSession = (ctx: EmulatorContext, sessionId: string) => {
  const session = ctx.state.checkoutSessions[sessionId] ?? fail(missing('checkout.session', sessionId));
  if (session.status === 'open' && ctx.nowSeconds() >= session.expiresAt) expireSession(ctx, session);
  return renderSession(ctx, session);
};

export const expireCheckoutSession = (ctx: EmulatorContext, sessionId: string) => {
  const session = ctx.state.checkoutSessions[sessionId] ?? fail(missing('checkout.session', sessionId));
  if (session.status !== 'open')
    throw new StripeApiError(400, `Only Checkout Sessions with a status in ["open"] can be expired.`);
  expireSession(ctx, session);
  return renderSession(ctx, session);
};

export const listCheckoutSessions = (ctx: EmulatorContext, params: FormObject) => ({
  object: 'list',
  data: Object.values(ctx.state.checkoutSessions)
    .filter((session) => {
      if (session.status === 'open' && ctx.nowSeconds() >= session.expiresAt) expireSession(ctx, session);
      return (
        (!str(params.customer) || session.customer === str(params.customer)) &&
        (!str(params.status) || session.status === str(params.status))
      );
    })
    .sort((a, b) => b.created - a.created)
    .map((session) => renderSession(ctx, session)),
  has_more: false,
  url: '/v1/checkout/sessions',
});
