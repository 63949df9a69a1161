/**
 * The processor emulator's records: the facts it keeps, in its own compact form. Responses are
 * rendered from these into Stripe's shapes (render.ts).
 */

export type CardBehavior = 'succeeds' | 'declined' | 'fails_later' | 'invalid';

export interface CustomerRecord {
  id: string;
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  created: number;
  hasAddress: boolean;
  defaultPaymentMethod: string | null;
  /** `address.country` (ISO code) when known: what automatic tax is computed from. */
  country?: string | null;
  /** Stripe's customer balance: negative is credit the customer has, used by the next invoices. */
  balance?: number;
}

export interface ProductRecord {
  id: string;
  name: string;
  active: boolean;
  metadata: Record<string, string>;
  created: number;
}

export interface PriceRecord {
  id: string;
  product: string;
  unitAmount: number;
  currency: string;
  interval: 'month' | 'year';
  lookupKey: string | null;
  nickname: string | null;
  active: boolean;
  metadata: Record<string, string>;
  created: number;
}

export interface CouponRecord {
  id: string;
  name: string | null;
  percentOff: number | null;
  amountOff: number | null;
  currency: string | null;
  duration: 'once' | 'repeating' | 'forever';
  durationInMonths: number | null;
  created: number;
  timesRedeemed: number;
}

export interface PromotionCodeRecord {
  id: string;
  code: string;
  coupon: string;
  active: boolean;
  maxRedemptions: number | null;
  timesRedeemed: number;
  created: number;
  metadata: Record<string, string>;
}

export interface PaymentMethodRecord {
  id: string;
  customer: string;
  last4: string;
  brand: string;
  behavior: CardBehavior;
  created: number;
}

export interface LineItem {
  price: string;
  quantity: number;
}

export interface AppliedDiscount {
  coupon: string;
  promotionCode: string | null;
}

export interface CheckoutSessionRecord {
  id: string;
  customer: string;
  mode: 'subscription';
  lineItems: LineItem[];
  allowPromotionCodes: boolean;
  discount: AppliedDiscount | null;
  clientReferenceId: string | null;
  subscriptionMetadata: Record<string, string>;
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string | null;
  expiresAt: number;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'unpaid' | 'paid' | 'no_payment_required';
  subscription: string | null;
  invoice: string | null;
  automaticTax: boolean;
  /** `customer_update[address]=auto`: the country typed on the page is saved to the customer. */
  customerUpdateAddress?: boolean;
  created: number;
}

export interface SubscriptionItemRecord {
  id: string;
  price: string;
  quantity: number;
  created: number;
}

export interface SubscriptionRecord {
  id: string;
  customer: string;
  /** Every status Stripe has; the emulator itself reaches active, past_due and canceled. */
  status:
    | 'incomplete'
    | 'incomplete_expired'
    | 'trialing'
    | 'active'
    | 'past_due'
    | 'unpaid'
    | 'canceled'
    | 'paused';
  items: SubscriptionItemRecord[];
  created: number;
  startDate: number;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  cancelAt: number | null;
  canceledAt: number | null;
  endedAt: number | null;
  cancellationReason: 'cancellation_requested' | 'payment_failed' | 'payment_disputed' | null;
  /** `cancellation_details.comment`, as the canceller wrote it (optional in older saved state). */
  cancellationComment?: string | null;
  metadata: Record<string, string>;
  defaultPaymentMethod: string | null;
  discount: (AppliedDiscount & { start: number }) | null;
  latestInvoice: string | null;
  automaticTax: boolean;
}

export interface InvoiceLine {
  id: string;
  description: string;
  amount: number;
  quantity: number;
  price: string | null;
  subscriptionItem: string | null;
  periodStart: number;
  periodEnd: number;
  proration: boolean;
  invoiceItem: string | null;
  /** What the coupon took off this line, and the tax on the rest (absent: 0). */
  discountAmount?: number;
  tax?: number;
}

export interface InvoiceRecord {
  id: string;
  customer: string;
  subscription: string | null;
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual';
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  lines: InvoiceLine[];
  subtotal: number;
  discountAmount: number;
  discount: AppliedDiscount | null;
  tax: number;
  total: number;
  amountPaid: number;
  attemptCount: number;
  periodStart: number;
  periodEnd: number;
  created: number;
  paidAt: number | null;
  paymentIntent: string | null;
  number: string;
  subscriptionMetadata: Record<string, string>;
  /** The amount charged (total after the customer balance); absent in older state: the total. */
  amountDue?: number;
  /** The customer balance before and after this invoice (absent in older state: 0 and null). */
  startingBalance?: number;
  endingBalance?: number | null;
  /** Whether automatic tax applied, and at what rate (percent); absent in older state: on, 0. */
  automaticTax?: boolean;
  taxRate?: number;
}

export interface PaymentIntentRecord {
  id: string;
  amount: number;
  amountRefunded: number;
  customer: string;
  paymentMethod: string | null;
  status: 'succeeded' | 'requires_payment_method';
  invoice: string;
  created: number;
}

export interface InvoicePaymentRecord {
  id: string;
  invoice: string;
  paymentIntent: string;
  amount: number;
  status: 'paid' | 'open' | 'canceled';
  created: number;
  paidAt: number | null;
}

export interface InvoiceItemRecord {
  id: string;
  customer: string;
  subscription: string | null;
  amount: number;
  description: string;
  price: string | null;
  quantity: number;
  periodStart: number;
  periodEnd: number;
  proration: boolean;
  invoice: string | null;
  created: number;
  /** The subscription item a proration is for (absent in older state). */
  subscriptionItem?: string | null;
  /**
   * The subscription's discount as it applied when the item was made (a proration keeps the
   * discount of the period it was made in, as Stripe copies it onto the item); absent in older
   * state: the discount of the invoice that takes it.
   */
  discount?: AppliedDiscount | null;
  /**
   * What that discount takes off a proration, worked out when it was made (the invoice that takes
   * it keeps this amount; the item's `net_amount` is `amount` less it); absent in older state: the
   * invoice works it out.
   */
  discountAmount?: number;
}

export interface RefundRecord {
  id: string;
  amount: number;
  paymentIntent: string;
  status: 'succeeded';
  reason: string | null;
  metadata: Record<string, string>;
  created: number;
}

export interface PortalConfigurationRecord {
  id: string;
  paymentMethodUpdate: boolean;
  subscriptionCancel: boolean;
  cancelMode: 'immediately' | 'at_period_end';
  subscriptionUpdate: boolean;
  invoiceHistory: boolean;
  defaultReturnUrl: string | null;
  metadata: Record<string, string>;
  isDefault: boolean;
  created: number;
}

export interface PortalSessionRecord {
  id: string;
  customer: string;
  configuration: string;
  returnUrl: string | null;
  created: number;
}

export interface IdempotentResponse {
  fingerprint: string;
  status: number;
  body: string;
}

export interface ProcessorState {
  sequence: number;
  customers: Record<string, CustomerRecord>;
  products: Record<string, ProductRecord>;
  prices: Record<string, PriceRecord>;
  coupons: Record<string, CouponRecord>;
  promotionCodes: Record<string, PromotionCodeRecord>;
  paymentMethods: Record<string, PaymentMethodRecord>;
  checkoutSessions: Record<string, CheckoutSessionRecord>;
  subscriptions: Record<string, SubscriptionRecord>;
  invoices: Record<string, InvoiceRecord>;
  paymentIntents: Record<string, PaymentIntentRecord>;
  invoicePayments: Record<string, InvoicePaymentRecord>;
  invoiceItems: Record<string, InvoiceItemRecord>;
  refunds: Record<string, RefundRecord>;
  portalConfigurations: Record<string, PortalConfigurationRecord>;
  portalSessions: Record<string, PortalSessionRecord>;
  events: Record<string, unknown>;
  /**
   * Events emitted while a webhook endpoint was set and not delivered yet (queued, or being
   * retried), oldest first: a restart delivers them (at least once, as Stripe does). Absent in
   * state files written before it was kept.
   */
  pendingWebhooks?: string[];
  idempotency: Record<string, IdempotentResponse>;
}

export const emptyState = (): ProcessorState => ({
  sequence: 0,
  customers: {},
  products: {},
  prices: {},
  coupons: {},
  promotionCodes: {},
  paymentMethods: {},
  checkoutSessions: {},
  subscriptions: {},
  invoices: {},
  paymentIntents: {},
  invoicePayments: {},
  invoiceItems: {},
  refunds: {},
  portalConfigurations: {},
  portalSessions: {},
  events: {},
  pendingWebhooks: [],
  idempotency: {},
});

/** What the hosted pages say when a card is refused. */
export const CARD_MESSAGES: Record<Exclude<CardBehavior, 'succeeds' | 'fails_later'>, string> = {
  declined: 'Your card was declined.',
  invalid: 'Your card number is invalid.',
};

/** Stripe's test cards (https://docs.stripe.com/testing), by what they do. */
export const cardBehavior = (cardNumber: string): CardBehavior => {
  const digits = cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) return 'invalid';
  if (digits === '4000000000000002' || digits === '4000000000009995') return 'declined';
  if (digits === '4000000000000341') return 'fails_later';
  return 'succeeds';
};

const luhn = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
};

/** One calendar month later (UTC), the day clamped to the month's length, as Stripe bills. */
export const addMonths = (epochSeconds: number, months: number): number => {
  const date = new Date(epochSeconds * 1000);
  const day = date.getUTCDate();
  const target = new Date(date.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return Math.floor(target.getTime() / 1000);
};
