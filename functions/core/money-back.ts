import type { BillingState } from './billing-state.ts';

/**
 * The money-back refund (spec: "Money-back refund"): a window that opens with the first invoice
 * settled for more than zero and lasts 14 days, judged at the time support received the tenant's
 * email; usable once per tenant, ever. Pure rules only: the use case is functions/billing/money-back.ts.
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
  'decommissioning',
  'nothing_paid',
  'window_passed',
] as const;
export type MoneyBackRefusal = (typeof MONEY_BACK_REFUSALS)[number];

export interface MoneyBackRequest {
  billingState: BillingState;
  /** A grant was completed for this tenant before (once per tenant, ever). */
  alreadyGranted: boolean;
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
  if (request.billingState === 'decommissioning' && !request.grantUnderway) return 'decommissioning';
  if (request.firstPaidAt === null || request.requestedAt.getTime() < Date.parse(request.firstPaidAt))
    return 'nothing_paid';
  if (request.requestedAt.getTime() > Date.parse(moneyBackWindow(request.firstPaidAt).until))
    return 'window_passed';
  return undefined;
};

/** Email addresses compare without case and surrounding blanks. */
export const sameEmail = (a: string | null | undefined, b: string | null | undefined): boolean =>
  typeof a === 'string' && typeof b === 'string' && a.trim().toLowerCase() === b.trim().toLowerCase();

/** What each refusal says (HTTP status for the operator route; the CLI prints the message). */
export const moneyBackRefusalMessage = (
  code: MoneyBackRefusal,
  facts: { windowUntil?: string | null; requestedAt?: string; grantedAt?: string | null },
): { status: number; message: string } => {
  switch (code) {
    case 'requested_in_future':
      return {
        status: 400,
        message: `The request time (${facts.requestedAt}) is in the future: give the time support received the email (--requested-at), never later than now.`,
      };
    case 'email_mismatch':
      return {
        status: 403,
        message:
          "The email address is neither the account's billing address nor an administrator's: ask the tenant to write from the account's address.",
      };
    case 'already_used':
      return {
        status: 409,
        message: `This tenant already used its money-back refund${facts.grantedAt ? ` (granted ${facts.grantedAt})` : ''}; it can be used once per tenant.`,
      };
    case 'decommissioning':
      return {
        status: 409,
        message:
          'The account is already leaving (decommissioning): there is no subscription left to refund under the money-back window.',
      };
    case 'nothing_paid':
      return {
        status: 409,
        message:
          'Nothing had been paid when the request was received: the window opens with the first invoice paid for more than zero.',
      };
    case 'window_passed':
      return {
        status: 409,
        message: `The money-back window ended ${facts.windowUntil} (14 days after the first paid invoice); the request was received ${facts.requestedAt}.`,
      };
  }
};
