import type { BillingState } from './billing-state.ts';

/**
 * The money-back refund (spec: "Money-back refund"): a window that opens with the first invoice
 * settled for more than zero and lasts 14 days, judged at the time support received the tenant's
 * email; usable once per person, ever (a returning customer's new account does not get a second
 * one), and only while the account is `active` (the spec's one transition for it). Pure rules
 * only: the use case is functions/billing/money-back.ts.
 */

/** The window's length: 14 × 24 hours, both ends included. */
export const MONEY_BACK_WINDOW_HOURS = 14 * 24;
const HOUR_MS = 3_600_000;

/** What the tenant is reminded of wherever the refund is offered. */
export const MONEY_BACK_REMINDER =
  'Export your data first: the Stacks are torn down after the export window once the refund is granted.';

/**
 * The money-back window: from the payment of the first invoice whose total is above zero, as the
 * processor reports it, until 14 × 24 hours later (inclusive). Every charge made in it is refunded
 * (`moneyBackCharges`).
 */
export const moneyBackWindow = (firstPaidAt: string): { from: string; until: string } => {
  const from = Date.parse(firstPaidAt);
  if (Number.isNaN(from)) throw new Error(`not a time: ${firstPaidAt}`);
  return {
    from: new Date(from).toISOString(),
    until: new Date(from + MONEY_BACK_WINDOW_HOURS * HOUR_MS).toISOString(),
  };
};

/** An invoice settled (paid) for a total above zero, as the processor lists it. */
export interface SettledCharge {
  id: string;
  /** When the invoice was paid: its own stamp, the one the window is measured on. */
  paidAt: string;
  createdAt: string;
}

/**
 * The invoice that opens the window: the first settled for a total above zero (the earliest paid;
 * in the same second, the one made first, then the lowest id, so the choice never wavers).
 */
export const windowOpening = <T extends SettledCharge>(invoices: readonly T[]): T | undefined =>
  [...invoices].sort(
    (a, b) =>
      Date.parse(a.paidAt) - Date.parse(b.paidAt) ||
      Date.parse(a.createdAt) - Date.parse(b.createdAt) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )[0];

/**
 * The charges the money-back refunds, matched by identity: the invoice that opens the window, and
 * every other invoice whose own paid stamp falls in the window (the same stamp the window is
 * measured on, both ends included). What is refunded is the payments of exactly these invoices;
 * a payment's own time is never compared with an invoice's (the processor stamps them apart, a
 * second can separate them). Null when nothing was settled above zero.
 */
export const moneyBackCharges = <T extends SettledCharge>(
  invoices: readonly T[],
): { opening: T; window: { from: string; until: string }; charges: T[] } | null => {
  const opening = windowOpening(invoices);
  if (!opening) return null;
  const window = moneyBackWindow(opening.paidAt);
  const until = Date.parse(window.until);
  const charges = invoices.filter(
    (invoice) => invoice.id === opening.id || Date.parse(invoice.paidAt) <= until,
  );
  return { opening, window, charges };
};

/** Why a money-back request is refused, in the order they are checked. */
export const MONEY_BACK_REFUSALS = [
  'requested_in_future',
  'email_mismatch',
  'already_used',
  'used_by_earlier_account',
  'decommissioning',
  'account_past_due',
  'account_suspended',
  'nothing_paid',
  'window_passed',
] as const;
export type MoneyBackRefusal = (typeof MONEY_BACK_REFUSALS)[number];

export interface MoneyBackRequest {
  billingState: BillingState;
  /** A grant was completed for this tenant before (once per person, ever: an earlier account's grant counts too). */
  alreadyGranted: boolean;
  /**
   * A grant was completed for an earlier account of the same person (a returning customer): the
   * refund is once per person, so a subscribe-refund-leave-return loop pays out once.
   */
  grantedToEarlierAccount?: boolean;
  /**
   * A grant was claimed and not completed (a run stopped between refunds): it is continued, even
   * when the sweep has already moved the tenant to `decommissioning` because of its cancel.
   */
  grantUnderway?: boolean;
  /** When the first invoice above zero was paid, as the processor reports it; null: none yet. */
  firstPaidAt: string | null;
  /** When support received the tenant's email. */
  requestedAt: Date;
  now: Date;
  /** The address matches the processor customer's or an administrator's (case-insensitive). */
  emailMatches: boolean;
}

/**
 * The first reason, in a fixed order, why the request is refused; undefined when it may be granted.
 * The window is judged at `requestedAt` (never later than now), inclusive up to 14 × 24 hours
 * after the first paid invoice above zero; nothing had been paid if that payment came after it.
 */
export const moneyBackRefusal = (request: MoneyBackRequest): MoneyBackRefusal | undefined => {
  if (request.requestedAt.getTime() > request.now.getTime()) return 'requested_in_future';
  if (!request.emailMatches) return 'email_mismatch';
  if (request.alreadyGranted) return 'already_used';
  if (request.grantedToEarlierAccount && !request.grantUnderway) return 'used_by_earlier_account';
  if (request.billingState === 'decommissioning' && !request.grantUnderway) return 'decommissioning';
  // Only an active account is refunded (the spec's `active` --refund granted--> `decommissioning`);
  // a grant under way was claimed while active and is finished whatever came since.
  if (request.billingState === 'past-due' && !request.grantUnderway) return 'account_past_due';
  if (request.billingState === 'suspended' && !request.grantUnderway) return 'account_suspended';
  if (request.firstPaidAt === null || request.requestedAt.getTime() < Date.parse(request.firstPaidAt))
    return 'nothing_paid';
  if (request.requestedAt.getTime() > Date.parse(moneyBackWindow(request.firstPaidAt).until))
    return 'window_passed';
  return undefined;
};

/** Email addresses compare without case and surrounding blanks. */
export const sameEmail = (a: string | null | undefined, b: string | null | undefined): boolean =>
  typeof a === 'string' && typeof b === 'string' && a.trim().toLowerCase() === b.trim().toLowerCase();

/** What a refusal's words name (their words: the billing refusal catalog, functions/core/refusals/billing.ts). */
export interface MoneyBackRefusalFacts {
  windowUntil?: string | null;
  requestedAt?: string;
  grantedAt?: string | null;
  /** The earlier account that used the refund (its slug), for `used_by_earlier_account`. */
  earlierSlug?: string | null;
  /** When the running grace ends, for `account_past_due` and `account_suspended`. */
  graceEndsAt?: string | null;
}
