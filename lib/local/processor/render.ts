import type Stripe from 'stripe';
import { type ResourceName, shape } from './shapes.ts';
import type {
  AppliedDiscount,
  CheckoutSessionRecord,
  CouponRecord,
  CustomerRecord,
  InvoiceItemRecord,
  InvoicePaymentRecord,
  InvoiceRecord,
  PaymentIntentRecord,
  PaymentMethodRecord,
  PortalConfigurationRecord,
  PortalSessionRecord,
  PriceRecord,
  ProcessorState,
  ProductRecord,
  PromotionCodeRecord,
  RefundRecord,
  SubscriptionRecord,
} from './state.ts';

/**
 * A Stripe object rendered from a record: its id, its `object` (the resource's name), the
 * record's fields that keep their names (`same`), and the other `values` (the rest is the
 * resource's fixture, as `shape` makes it).
 */
const rendered = <T, R extends { id: string } = { id: string }>(
  resource: ResourceName,
  record: R,
  same: readonly (keyof R & string)[],
  values: Record<string, unknown>,
): T =>
  shape<T>(resource, {
    id: record.id,
    object: resource,
    ...Object.fromEntries(same.map((key) => [key, record[key]])),
    ...values,
  });

/** Renders the emulator's records as Stripe objects of the pinned API version. */
export class Renderer {
  readonly state: () => ProcessorState;
  readonly baseUrl: () => string;

  constructor(state: () => ProcessorState, baseUrl: () => string) {
    this.state = state;
    this.baseUrl = baseUrl;
  }

  customer(record: CustomerRecord): Stripe.Customer {
    return rendered('customer', record, ['email', 'name', 'metadata', 'created'], {
      balance: record.balance ?? 0,
      currency: 'usd',
      address: record.country
        ? { city: null, country: record.country, line1: null, line2: null, postal_code: null, state: null }
        : null,
      description: null,
      discount: null,
      invoice_prefix: record.id.slice(-8).toUpperCase(),
      invoice_settings: {
        custom_fields: null,
        default_payment_method: record.defaultPaymentMethod,
        footer: null,
        rendering_options: null,
      },
    });
  }

  product(record: ProductRecord): Stripe.Product {
    return rendered('product', record, ['name', 'active', 'metadata', 'created'], {
      updated: record.created,
      default_price: null,
      description: null,
      images: [],
    });
  }

  price(record: PriceRecord): Stripe.Price {
    const same = ['active', 'currency', 'product', 'nickname', 'metadata', 'created'] as const;
    return rendered('price', record, same, {
      unit_amount: record.unitAmount,
      unit_amount_decimal: String(record.unitAmount),
      lookup_key: record.lookupKey,
      type: 'recurring',
      billing_scheme: 'per_unit',
      recurring: {
        interval: record.interval,
        interval_count: 1,
        meter: null,
        usage_type: 'licensed',
        trial_period_days: null,
      },
      tax_behavior: 'exclusive',
    });
  }

  coupon(record: CouponRecord): Stripe.Coupon {
    return rendered('coupon', record, ['name', 'currency', 'duration', 'created'], {
      percent_off: record.percentOff,
      amount_off: record.amountOff,
      duration_in_months: record.durationInMonths,
      times_redeemed: record.timesRedeemed,
      valid: true,
      metadata: {},
      max_redemptions: null,
      redeem_by: null,
    });
  }

  promotionCode(record: PromotionCodeRecord): Stripe.PromotionCode {
    const same = ['code', 'active', 'created', 'metadata'] as const;
    return rendered('promotion_code', record, same, {
      max_redemptions: record.maxRedemptions,
      times_redeemed: record.timesRedeemed,
      expires_at: null,
      customer: null,
      promotion: { coupon: record.coupon, type: 'coupon' },
    });
  }

  paymentMethod(record: PaymentMethodRecord): Stripe.PaymentMethod {
    return rendered('payment_method', record, ['customer', 'created'], {
      type: 'card',
      metadata: {},
      card: {
        brand: record.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: 'US',
        display_brand: record.brand,
        exp_month: 12,
        exp_year: new Date(record.created * 1000).getUTCFullYear() + 3,
        fingerprint: `fp_${record.last4}`,
        funding: 'credit',
        generated_from: null,
        last4: record.last4,
        networks: { available: [record.brand], preferred: null },
        regulated_status: 'unregulated',
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
    });
  }

  private discount(
    applied: AppliedDiscount | null,
    ids: { subscription?: string; invoice?: string; session?: string },
    start: number,
  ) {
    if (!applied) return null;
    const coupon = this.state().coupons[applied.coupon];
    if (!coupon) return null;
    return shape<Stripe.Discount>('discount', {
      id: `di_${applied.coupon}_${ids.subscription ?? ids.invoice ?? ids.session ?? ''}`.slice(0, 40),
      object: 'discount',
      checkout_session: ids.session ?? null,
      customer: null,
      end:
        coupon.duration === 'repeating' && coupon.durationInMonths
          ? start + coupon.durationInMonths * 30 * 86400
          : null,
      invoice: ids.invoice ?? null,
      invoice_item: null,
      promotion_code: applied.promotionCode,
      source: { coupon: this.coupon(coupon), type: 'coupon' },
      start,
      subscription: ids.subscription ?? null,
      subscription_item: null,
    });
  }

  checkoutSession(
    record: CheckoutSessionRecord,
    amounts: { subtotal: number; discount: number; tax: number },
  ): Stripe.Checkout.Session {
    const same = ['mode', 'status', 'customer', 'created', 'metadata', 'subscription', 'invoice'] as const;
    return rendered('checkout.session', record, same, {
      payment_status: record.paymentStatus,
      url: record.status === 'open' ? `${this.baseUrl()}/c/pay/${record.id}` : null,
      customer_email: null,
      client_reference_id: record.clientReferenceId,
      allow_promotion_codes: record.allowPromotionCodes,
      amount_subtotal: amounts.subtotal,
      amount_total: amounts.subtotal - amounts.discount + amounts.tax,
      total_details: { amount_discount: amounts.discount, amount_shipping: 0, amount_tax: amounts.tax },
      automatic_tax: {
        enabled: record.automaticTax,
        liability: record.automaticTax ? { type: 'self' } : null,
        status: record.automaticTax ? 'complete' : null,
        provider: record.automaticTax ? 'stripe' : null,
      },
      currency: 'usd',
      expires_at: record.expiresAt,
      success_url: record.successUrl,
      cancel_url: record.cancelUrl,
      payment_intent: null,
      payment_method_collection: 'always',
      discounts: record.discount
        ? [{ coupon: record.discount.coupon, promotion_code: record.discount.promotionCode }]
        : [],
      client_secret: null,
    });
  }

  subscription(record: SubscriptionRecord): Stripe.Subscription {
    const items = record.items.map((item) => {
      const price = this.state().prices[item.price];
      return shape<Stripe.SubscriptionItem>('subscription_item', {
        id: item.id,
        object: 'subscription_item',
        created: item.created,
        price: price ? this.price(price) : null,
        quantity: item.quantity,
        subscription: record.id,
        metadata: {},
        discounts: [],
        tax_rates: [],
        current_period_start: record.currentPeriodStart,
        current_period_end: record.currentPeriodEnd,
      });
    });
    const discount = this.discount(
      record.discount,
      { subscription: record.id },
      record.discount?.start ?? record.created,
    );
    const same = ['customer', 'status', 'created', 'metadata'] as const;
    return rendered('subscription', record, same, {
      start_date: record.startDate,
      billing_cycle_anchor: record.startDate,
      billing_cycle_anchor_config: null,
      cancel_at_period_end: record.cancelAtPeriodEnd,
      cancel_at: record.cancelAt,
      canceled_at: record.canceledAt,
      ended_at: record.endedAt,
      cancellation_details: {
        comment: record.cancellationComment ?? null,
        feedback: null,
        reason: record.cancellationReason,
      },
      collection_method: 'charge_automatically',
      currency: 'usd',
      default_payment_method: record.defaultPaymentMethod,
      discounts: discount ? [discount.id] : [],
      latest_invoice: record.latestInvoice,
      automatic_tax: {
        enabled: record.automaticTax,
        liability: record.automaticTax ? { type: 'self' } : null,
        disabled_reason: null,
      },
      items: {
        object: 'list',
        data: items,
        has_more: false,
        url: `/v1/subscription_items?subscription=${record.id}`,
      },
      pending_update: null,
      schedule: null,
      trial_end: null,
      trial_start: null,
      test_clock: null,
    });
  }

  invoice(record: InvoiceRecord): Stripe.Invoice {
    const amountDue = record.amountDue ?? record.total;
    const amountRemaining = record.status === 'paid' ? 0 : amountDue - record.amountPaid;
    const discountId = record.discount ? `di_${record.discount.coupon}` : null;
    const taxRate = record.taxRate ?? 0;
    const tax = (amount: number, taxable: number) => ({
      amount,
      tax_behavior: 'exclusive' as const,
      tax_rate_details: { tax_rate: `txr_emulated_${String(taxRate).replace('.', '_')}pct` },
      taxability_reason: 'standard_rated' as const,
      taxable_amount: taxable,
      type: 'tax_rate_details' as const,
    });
    const automaticTax = record.automaticTax ?? true;
    const lines = record.lines.map((line) =>
      shape<Stripe.InvoiceLineItem>('line_item', {
        id: line.id,
        object: 'line_item',
        amount: line.amount,
        currency: 'usd',
        description: line.description,
        invoice: record.id,
        quantity: line.quantity,
        period: { start: line.periodStart, end: line.periodEnd },
        subscription: record.subscription,
        metadata: {},
        discount_amounts:
          line.discountAmount && discountId ? [{ amount: line.discountAmount, discount: discountId }] : [],
        discounts: line.discountAmount && discountId ? [discountId] : [],
        discountable: true,
        pretax_credit_amounts: [],
        taxes: line.tax ? [tax(line.tax, line.amount - (line.discountAmount ?? 0))] : [],
        subtotal: line.amount,
        parent: line.subscriptionItem
          ? {
              type: 'subscription_item_details',
              invoice_item_details: null,
              subscription_item_details: {
                invoice_item: line.invoiceItem,
                proration: line.proration,
                proration_details: { credited_items: null },
                subscription: record.subscription,
                subscription_item: line.subscriptionItem,
              },
            }
          : {
              type: 'invoice_item_details',
              invoice_item_details: {
                invoice_item: line.invoiceItem ?? '',
                proration: line.proration,
                proration_details: { credited_items: null },
                subscription: record.subscription,
              },
              subscription_item_details: null,
            },
        pricing: {
          type: 'price_details',
          price_details: {
            price: line.price,
            product: line.price ? (this.state().prices[line.price]?.product ?? null) : null,
          },
          unit_amount_decimal: String(line.quantity ? Math.round(line.amount / line.quantity) : line.amount),
        },
      }),
    );
    const customer = this.state().customers[record.customer];
    const same = ['customer', 'status', 'created', 'number', 'subtotal', 'total'] as const;
    return rendered('invoice', record, same, {
      customer_email: customer?.email ?? null,
      customer_name: customer?.name ?? null,
      billing_reason: record.billingReason,
      collection_method: 'charge_automatically',
      currency: 'usd',
      subtotal_excluding_tax: record.subtotal,
      total_excluding_tax: record.total - record.tax,
      total_discount_amounts: record.discountAmount
        ? [{ amount: record.discountAmount, discount: discountId ?? 'di_' }]
        : [],
      total_taxes: record.tax ? [tax(record.tax, record.subtotal - record.discountAmount)] : [],
      amount_due: amountDue,
      starting_balance: record.startingBalance ?? 0,
      ending_balance: record.endingBalance ?? null,
      amount_paid: record.amountPaid,
      amount_remaining: amountRemaining,
      amount_overpaid: 0,
      attempt_count: record.attemptCount,
      attempted: record.attemptCount > 0,
      auto_advance: record.status === 'open',
      automatic_tax: automaticTax
        ? {
            enabled: true,
            liability: { type: 'self' },
            status: 'complete',
            disabled_reason: null,
            provider: 'stripe',
          }
        : { enabled: false, liability: null, status: null, disabled_reason: null, provider: null },
      discounts: discountId ? [discountId] : [],
      lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${record.id}/lines` },
      period_start: record.periodStart,
      period_end: record.periodEnd,
      effective_at: record.created,
      due_date: null,
      next_payment_attempt: record.status === 'open' ? record.created + 3 * 86400 : null,
      status_transitions: {
        finalized_at: record.created,
        marked_uncollectible_at: null,
        paid_at: record.paidAt,
        voided_at: null,
      },
      parent: record.subscription
        ? {
            type: 'subscription_details',
            quote_details: null,
            subscription_details: {
              metadata: record.subscriptionMetadata,
              subscription: record.subscription,
            },
          }
        : null,
      metadata: {},
      hosted_invoice_url: `${this.baseUrl()}/i/${record.id}`,
      // An issued invoice has a PDF; the emulator's stand-in is the hosted page again (`/i/<id>/pdf`).
      invoice_pdf: record.status === 'draft' ? null : `${this.baseUrl()}/i/${record.id}/pdf`,
      last_finalization_error: null,
      test_clock: null,
      webhooks_delivered_at: record.created,
    });
  }

  invoicePayment(record: InvoicePaymentRecord): Stripe.InvoicePayment {
    return rendered('invoice_payment', record, ['invoice', 'created', 'status'], {
      amount_paid: record.status === 'paid' ? record.amount : null,
      amount_requested: record.amount,
      currency: 'usd',
      is_default: true,
      payment: { type: 'payment_intent', payment_intent: record.paymentIntent },
      status_transitions: { canceled_at: null, paid_at: record.paidAt },
    });
  }

  paymentIntent(record: PaymentIntentRecord): Stripe.PaymentIntent {
    const same = ['amount', 'customer', 'status', 'created'] as const;
    return rendered('payment_intent', record, same, {
      amount_received: record.status === 'succeeded' ? record.amount : 0,
      currency: 'usd',
      payment_method: record.paymentMethod,
      metadata: {},
    });
  }

  invoiceItem(record: InvoiceItemRecord): Stripe.InvoiceItem {
    const same = ['amount', 'customer', 'description', 'invoice', 'quantity', 'proration'] as const;
    return rendered('invoiceitem', record, same, {
      currency: 'usd',
      date: record.created,
      period: { start: record.periodStart, end: record.periodEnd },
      metadata: {},
      discountable: false,
      discounts: [],
      // Not discountable (a proration): the amount after the discount it was made with, before tax.
      net_amount: record.amount - (record.discountAmount ?? 0),
      parent: record.subscription
        ? {
            type: 'subscription_details',
            subscription_details: {
              subscription: record.subscription,
              subscription_item: record.subscriptionItem ?? null,
            },
          }
        : null,
      pricing: {
        type: 'price_details',
        price_details: {
          price: record.price,
          product: record.price ? (this.state().prices[record.price]?.product ?? null) : null,
        },
        unit_amount_decimal: String(
          record.quantity ? Math.round(record.amount / record.quantity) : record.amount,
        ),
      },
    });
  }

  refund(record: RefundRecord): Stripe.Refund {
    return rendered('refund', record, ['amount', 'status', 'reason', 'metadata', 'created'], {
      currency: 'usd',
      payment_intent: record.paymentIntent,
      charge: null,
    });
  }

  portalConfiguration(record: PortalConfigurationRecord): Stripe.BillingPortal.Configuration {
    const same = ['created', 'metadata'] as const;
    return rendered('billing_portal.configuration', record, same, {
      active: true,
      is_default: record.isDefault,
      updated: record.created,
      default_return_url: record.defaultReturnUrl,
      features: {
        customer_update: { allowed_updates: [], enabled: false },
        invoice_history: { enabled: record.invoiceHistory },
        payment_method_update: { enabled: record.paymentMethodUpdate, payment_method_configuration: null },
        subscription_cancel: {
          cancellation_reason: { enabled: false, options: [] },
          enabled: record.subscriptionCancel,
          mode: record.cancelMode,
          proration_behavior: 'none',
        },
        subscription_update: {
          default_allowed_updates: [],
          enabled: record.subscriptionUpdate,
          proration_behavior: 'none',
          schedule_at_period_end: { conditions: [] },
          trial_update_behavior: 'end_trial',
          billing_cycle_anchor: null,
        },
      },
    });
  }

  portalSession(record: PortalSessionRecord): Stripe.BillingPortal.Session {
    const same = ['configuration', 'customer', 'created'] as const;
    return rendered('billing_portal.session', record, same, {
      return_url: record.returnUrl,
      url: `${this.baseUrl()}/p/session/${record.id}`,
      flow: null,
      locale: null,
      on_behalf_of: null,
    });
  }
}
