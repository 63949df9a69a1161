import type { OurCancelReason } from '#core/lifecycle.ts';
import { voidOpenInvoices } from '#ports/processor/invoices.ts';
import { type Payment, paymentsOf, refundPayment } from '#ports/processor/payments.ts';
import { cancelSubscriptionNow } from '#ports/processor/subscriptions.ts';

export interface RefundOutcome {
  /** Minor units refunded by this run (what earlier runs refunded is not counted again). */
  refundedAmount: number;
  refunds: number;
}

/**
 * THE refund use case: refunds every payment of a subscription that is not refunded yet (one
 * refund per payment, keyed per payment, so a rerun after a crash refunds nothing twice), then
 * ends the subscription at once (no proration, no final invoice) and voids what is still open.
 * Refunds come first: a crash after them leaves a live subscription that the next run cancels;
 * the other order could leave a cancelled subscription never refunded. `only` limits the refund
 * to those payments (the money-back window's charges, matched by their invoices).
 */
export const refundSubscription = async (
  subscriptionId: string,
  reason: OurCancelReason,
  only?: readonly Payment[],
): Promise<RefundOutcome> => {
  const outcome: RefundOutcome = { refundedAmount: 0, refunds: 0 };
  for (const payment of only ?? (await paymentsOf(subscriptionId))) {
    if (payment.refundable <= 0) continue;
    await refundPayment(payment.paymentIntentId, reason);
    outcome.refundedAmount += payment.refundable;
    outcome.refunds++;
  }
  await cancelSubscriptionNow(subscriptionId, reason);
  await voidOpenInvoices(subscriptionId);
  return outcome;
};
