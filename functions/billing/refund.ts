import type { OurCancelReason } from '#core/lifecycle.ts';
import { cancelSubscriptionNow, paymentsOf, refundPayment, voidOpenInvoices } from '#ports/processor.ts';

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
 * the other order could leave a cancelled subscription never refunded. `paidWithin` limits the
 * refund to payments made in a window (the money-back window).
 */
export const refundSubscription = async (
  subscriptionId: string,
  reason: OurCancelReason,
  paidWithin?: { from: string; until: string },
): Promise<RefundOutcome> => {
  const outcome: RefundOutcome = { refundedAmount: 0, refunds: 0 };
  for (const payment of await paymentsOf(subscriptionId)) {
    if (payment.refundable <= 0) continue;
    if (paidWithin && (payment.paidAt < paidWithin.from || payment.paidAt > paidWithin.until)) continue;
    await refundPayment(payment.paymentIntentId, reason);
    outcome.refundedAmount += payment.refundable;
    outcome.refunds++;
  }
  await cancelSubscriptionNow(subscriptionId, reason);
  await voidOpenInvoices(subscriptionId);
  return outcome;
};
