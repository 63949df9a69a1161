import type Stripe from 'stripe';
import type { OurCancelReason } from '#core/lifecycle.ts';
import { call, iso, MANAGED_BY } from './client.ts';

// ---------------------------------------------------------------------------------------------
// Settled invoices and their payments: what a refund is made of (the money-back window, a
// duplicate subscription, a closed account). Charges are matched by the invoices and payments the
// processor lists, never by comparing a payment's time with an invoice's.
// ---------------------------------------------------------------------------------------------

/** A successful payment of an invoice, and how much of it is not yet refunded. */
export interface Payment {
  paymentIntentId: string;
  amount: number;
  refundable: number;
  currency: string;
}

/** An invoice settled (paid) for a total above zero. */
export interface SettledInvoice {
  invoiceId: string;
  total: number;
  currency: string;
  /** When it was paid, as the processor stamps the invoice itself (`status_transitions.paid_at`). */
  paidAt: string;
  createdAt: string;
}

/** Every paid invoice of a customer or of a subscription, newest first, every page read. */
const paidInvoices = async (
  filter: { customer: string } | { subscription: string },
): Promise<Stripe.Invoice[]> => {
  const invoices: Stripe.Invoice[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await call((stripe, options) =>
      stripe.invoices.list(
        {
          ...filter,
          status: 'paid',
          limit: 100,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        },
        options,
      ),
    );
    invoices.push(...page.data);
    const last = page.data.at(-1);
    if (!page.has_more || !last?.id) return invoices;
    startingAfter = last.id;
  }
};

/** A paid invoice above zero as a fact (a paid invoice of zero, such as a full promotion's, is none). */
const settledOf = (invoice: Stripe.Invoice): SettledInvoice[] => {
  const paidAt = iso(invoice.status_transitions.paid_at);
  return invoice.id && invoice.total > 0 && paidAt
    ? [
        {
          invoiceId: invoice.id,
          total: invoice.total,
          currency: invoice.currency,
          paidAt,
          createdAt: iso(invoice.created) ?? paidAt,
        },
      ]
    : [];
};

/** Every invoice of the customer settled for a total above zero, in the order the processor lists them. */
export const settledInvoices = async (customerId: string): Promise<SettledInvoice[]> =>
  (await paidInvoices({ customer: customerId })).flatMap(settledOf);

/** The successful payments of one invoice, each with what of it is not refunded yet. */
export const invoicePayments = async (invoiceId: string): Promise<Payment[]> => {
  const paid = await call((stripe, options) =>
    stripe.invoicePayments.list({ invoice: invoiceId, limit: 100 }, options),
  );
  const payments: Payment[] = [];
  for (const payment of paid.data) {
    const intent = payment.payment.payment_intent;
    const intentId = typeof intent === 'string' ? intent : intent?.id;
    if (payment.status !== 'paid' || !intentId) continue;
    const details = await call((stripe, options) => stripe.paymentIntents.retrieve(intentId, {}, options));
    if (details.status !== 'succeeded') continue;
    const refunds = await call((stripe, options) =>
      stripe.refunds.list({ payment_intent: intentId, limit: 100 }, options),
    );
    const refunded = refunds.data
      .filter((refund) => refund.status === 'succeeded' || refund.status === 'pending')
      .reduce((sum, refund) => sum + refund.amount, 0);
    payments.push({
      paymentIntentId: intentId,
      amount: details.amount,
      refundable: details.amount - refunded,
      currency: details.currency,
    });
  }
  return payments;
};

/**
 * When the customer's first invoice whose total is above zero was paid (its `paid_at`), or null
 * when none is paid yet. Every paid invoice is read (the processor lists newest first).
 */
export const firstPaidInvoiceAt = async (customerId: string): Promise<string | null> =>
  (await settledInvoices(customerId)).map((invoice) => invoice.paidAt).sort()[0] ?? null;

/** Every successful payment of the subscription's invoices settled above zero. */
export const paymentsOf = async (subscriptionId: string): Promise<Payment[]> => {
  const payments: Payment[] = [];
  for (const invoice of (await paidInvoices({ subscription: subscriptionId })).flatMap(settledOf))
    payments.push(...(await invoicePayments(invoice.invoiceId)));
  return payments;
};

/** Refunds what is left of one payment, once: the key is per payment, so a rerun refunds nothing twice. */
export const refundPayment = async (paymentIntentId: string, reason: OurCancelReason): Promise<void> => {
  await call((stripe, options) =>
    stripe.refunds.create(
      { payment_intent: paymentIntentId, metadata: { reason, managed_by: MANAGED_BY } },
      { ...options, idempotencyKey: `refund:${paymentIntentId}` },
    ),
  );
};
