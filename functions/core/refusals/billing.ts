import type { MoneyBackRefusalFacts } from '../money-back.ts';
import { catalog } from './catalog.ts';

/**
 * The refusals of billing (checkout, portal, invoices, closing an account, money back) and of a
 * tenant that is leaving: each code once, with its kind and its words.
 */
export const billingRefusals = catalog({
  /**
   * Nothing new for a tenant that is leaving: decommissioning (`until`: when its data can still be
   * exported), its close asked for by its administrator (`asked`), or a Plan Change asked for
   * (`planChange`).
   */
  account_closing: {
    kind: 'conflict',
    words: (facts: { until: string } | { asked: true } | { planChange: true }) =>
      'asked' in facts
        ? 'This account is being closed, as its administrator asked: nothing new can be bought.'
        : 'planChange' in facts
          ? 'The account is closing: its Stacks can no longer change Plan.'
          : `This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data${facts.until}.`,
  },
  /** A cancellation is scheduled for the end of the paid period: `what` says what cannot happen now. */
  cancellation_scheduled: {
    kind: 'conflict',
    words: (facts: { what: string }) =>
      `A cancellation of the subscription is scheduled for the end of the billing period: the account closes then, so ${facts.what}. You can still read your billing status and export your data until the Stacks are torn down.`,
  },
  /** The Plan asked for has no free place in the Home Region (a checkout, an added Stack). */
  no_capacity: {
    kind: 'conflict',
    words: (facts: { plan: string }) =>
      `The ${facts.plan} Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for ${facts.plan} (POST /v1/billing/waitlist).`,
  },
  /**
   * A subscription exists already, or can still bill: this tenant's (`why: 'exists'`), a former
   * account's (`'former'`), or a checkout paid meanwhile that becomes one (`'paid'`).
   */
  subscription_exists: {
    kind: 'conflict',
    words: (facts: { why: 'exists' | 'former' | 'paid' }) =>
      facts.why === 'former'
        ? 'Your former account still has a subscription that can bill: nothing new can be bought until it has ended. Write to support.'
        : facts.why === 'paid'
          ? 'A checkout of this account has been paid: it becomes active within a minute. To leave, cancel in the billing portal (POST /v1/billing/portal).'
          : 'This tenant already has a subscription: add Stacks or change a Plan instead.',
  },
  checkout_in_progress: {
    kind: 'conflict',
    words: 'A checkout for this tenant is being prepared; repeat the request in a few seconds.',
  },
  slug_required: {
    kind: 'conflict',
    words: 'Lock in your slug first (POST /v1/tenant/slug), then check out.',
  },
  /** Closing is the portal's: a subscription exists (`subscribed`), or the account is no longer provisioning. */
  close_in_portal: {
    kind: 'conflict',
    words: (facts: { subscribed: boolean }) =>
      facts.subscribed
        ? 'This account has a subscription: cancel it in the billing portal (POST /v1/billing/portal); the account then closes.'
        : 'This account is no longer provisioning: reload and try again.',
  },
  no_customer: {
    kind: 'conflict',
    words: 'There is no billing account yet: complete a checkout first (POST /v1/billing/checkout).',
  },
  invoice_not_found: {
    kind: 'not_found',
    words:
      'None of your invoices has this reference: open the invoice from your list of invoices (GET /v1/billing/invoices).',
  },
  invoice_document_unknown: {
    kind: 'not_found',
    words: 'An invoice is shown as `view` (its page) or `pdf`: use one of those.',
  },
  invoice_pdf_not_ready: {
    kind: 'not_found',
    words: 'This invoice has no PDF yet: view the invoice instead.',
  },
  /** An operator route reached without IAM signing. */
  iam_required: { kind: 'forbidden', words: 'Operators only: sign the request with IAM (SigV4).' },
  // The money-back refusals (functions/core/money-back.ts, moneyBackRefusal), in the order checked.
  requested_in_future: {
    kind: 'invalid',
    words: (facts: MoneyBackRefusalFacts) =>
      `The request time (${facts.requestedAt}) is in the future: give the time support received the email (--requested-at), never later than now.`,
  },
  email_mismatch: {
    kind: 'forbidden',
    words: (_facts: MoneyBackRefusalFacts) =>
      "The email address is neither the account's billing address nor an administrator's: ask the tenant to write from the account's address.",
  },
  already_used: {
    kind: 'conflict',
    words: (facts: MoneyBackRefusalFacts) =>
      `This tenant already used its money-back refund${facts.grantedAt ? ` (granted ${facts.grantedAt})` : ''}; it can be used once per person.`,
  },
  used_by_earlier_account: {
    kind: 'conflict',
    words: (facts: MoneyBackRefusalFacts) =>
      `This person already used the money-back refund with an earlier account${facts.earlierSlug ? ` ("${facts.earlierSlug}")` : ''}${facts.grantedAt ? ` (granted ${facts.grantedAt})` : ''}; it can be used once per person, and a new account does not bring a second one.`,
  },
  decommissioning: {
    kind: 'conflict',
    words: (_facts: MoneyBackRefusalFacts) =>
      'The account is already leaving (decommissioning): there is no subscription left to refund under the money-back window.',
  },
  account_past_due: {
    kind: 'conflict',
    words: (facts: MoneyBackRefusalFacts) =>
      `The account is past due: a payment failed${facts.graceEndsAt ? ` and its grace ends ${facts.graceEndsAt}` : ''}. The money-back refund is granted only to an active account: once the payment is made (the card can be updated in the billing portal) the account is active again, and a request received within the window can then be granted.`,
  },
  account_suspended: {
    kind: 'conflict',
    words: (facts: MoneyBackRefusalFacts) =>
      `The account is suspended: a payment failed and was not made within the past-due grace${facts.graceEndsAt ? `; the account closes ${facts.graceEndsAt} unless it is paid` : ''}. The money-back refund is granted only to an active account: once the payment is made (the card can be updated in the billing portal) the account is active again, and a request received within the window can then be granted.`,
  },
  nothing_paid: {
    kind: 'conflict',
    words: (_facts: MoneyBackRefusalFacts) =>
      'Nothing had been paid when the request was received: the window opens with the first invoice paid for more than zero.',
  },
  window_passed: {
    kind: 'conflict',
    words: (facts: MoneyBackRefusalFacts) =>
      `The money-back window ended ${facts.windowUntil} (14 days after the first paid invoice); the request was received ${facts.requestedAt}.`,
  },
  /** The first payment is not recorded by the sweep yet. */
  payment_not_seen_yet: {
    kind: 'conflict',
    words:
      'The first payment is not recorded yet (the sweep records it within a minute of the payment): try again in a minute.',
  },
});
