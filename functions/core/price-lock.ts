import { isPlanValue, PLAN_VALUES, PLANS, type Plan, type PlanValue } from './plans.ts';

/**
 * The Founding Price Lock and the list prices of the day (docs/product.md, "Refunds, Founding
 * Price Lock, promotions"). Pure rules: the use cases give them times, Plans and stored locks.
 *
 * - A tenant is *founding* when its first subscription was completed (paid at checkout) before
 *   Open Signup (`OPEN_SIGNUP_AT`); an invitation, an account or a started checkout does not count.
 * - The founding tenant's first Stack is *locked* at the price it was bought at: it keeps that
 *   price while the subscription has no break and the Stack stays on that Plan.
 * - Confirming a Plan Change of the Stack ends its lock for good (whatever then happens to the
 *   change); the subscription ending (any cancellation) ends every lock of the tenant.
 * - Stacks added later are never locked: they are billed at the list price of the day.
 */

/** Why a lock ended, for the tenant. */
export const PRICE_LOCK_END_REASONS = ['plan_change_confirmed', 'subscription_cancelled'] as const;
export type PriceLockEndReason = (typeof PRICE_LOCK_END_REASONS)[number];

export const PRICE_LOCK_STATES = ['locked', 'ended'] as const;
export type PriceLockState = (typeof PRICE_LOCK_STATES)[number];

/** A monthly price in integer minor units with its ISO 4217 code (upper case). */
export interface ListPrice {
  amount: number;
  currency: string;
}

/** What is kept on a Stack of a founding tenant. */
export interface PriceLock {
  state: PriceLockState;
  /** The Plan whose price is locked (the Stack's Plan when it was locked). */
  plan: PlanValue;
  /** The monthly list price it keeps. */
  monthlyPrice: ListPrice;
  lockedAt: string;
  endedAt?: string;
  reason?: PriceLockEndReason;
}

/**
 * Was a first subscription completed at `completedAt` a founding one? Before Open Signup, yes.
 * No Open Signup time configured means Open Signup has not come yet: every completion is founding.
 */
export const isFoundingCompletion = (
  completedAt: string,
  openSignupAt: string | undefined,
  /** The person paid a subscription before, with an earlier account (a returning customer): never founding. */
  subscribedBefore = false,
): boolean =>
  !subscribedBefore && (openSignupAt === undefined || Date.parse(completedAt) < Date.parse(openSignupAt));

/**
 * The lock a tenant's first Stack gets when the sweep activates the tenant: `locked` at the price
 * the first subscription was bought at when that subscription was founding, else none.
 */
export const lockAtActivation = (params: {
  completedAt: string;
  openSignupAt: string | undefined;
  plan: PlanValue;
  monthlyPrice: ListPrice;
  now: Date;
  /** A returning customer who paid before: the lock is not carried over, and none is given anew. */
  subscribedBefore?: boolean;
}): PriceLock | undefined =>
  isFoundingCompletion(params.completedAt, params.openSignupAt, params.subscribedBefore)
    ? {
        state: 'locked',
        plan: params.plan,
        monthlyPrice: {
          amount: params.monthlyPrice.amount,
          currency: params.monthlyPrice.currency.toUpperCase(),
        },
        lockedAt: params.now.toISOString(),
      }
    : undefined;

/**
 * A lock ended for `reason` at `at`. A lock that already ended keeps its first end (the lock never
 * comes back, and the reason shown is what ended it); no lock stays none.
 */
export const endPriceLock = (
  lock: PriceLock | undefined,
  reason: PriceLockEndReason,
  at: Date,
): PriceLock | undefined =>
  lock?.state === 'locked' ? { ...lock, state: 'ended', endedAt: at.toISOString(), reason } : lock;

/**
 * Does the lock hold for a Stack on `stackPlan`? Only while it is `locked` and the Stack is on the
 * Plan it was locked on (a Stack on another Plan went through a confirmed change, which ended it).
 */
export const lockHolds = (lock: PriceLock | undefined, stackPlan: PlanValue): boolean =>
  lock?.state === 'locked' && lock.plan === stackPlan;

/** The lock as a tenant sees it on a Stack (null: the Stack never had one). */
export const priceLockView = (lock: PriceLock | undefined, stackPlan: PlanValue) => {
  if (!lock) return null;
  const holds = lockHolds(lock, stackPlan);
  return {
    state: holds ? ('locked' as const) : ('ended' as const),
    plan: lock.plan,
    monthlyPrice: lock.monthlyPrice,
    lockedAt: lock.lockedAt,
    endedAt: holds ? null : (lock.endedAt ?? null),
    reason: holds ? null : (lock.reason ?? 'plan_change_confirmed'),
  };
};

/**
 * The tenant's summary for the billing status: founding or not (only a founding tenant's first
 * Stack ever gets a lock), how many Stacks keep their price now, and the ends.
 */
export const priceLockSummary = (
  stacks: readonly { stackId: string; plan: PlanValue; lifecycle: string; priceLock?: PriceLock }[],
) => {
  const withLock = stacks.filter((stack) => stack.priceLock !== undefined);
  const views = withLock.map((stack) => ({
    stackId: stack.stackId,
    view: priceLockView(stack.priceLock, stack.plan),
  }));
  return {
    founding: withLock.length > 0,
    lockedStacks: withLock.filter(
      (stack) => stack.lifecycle !== 'torn_down' && lockHolds(stack.priceLock, stack.plan),
    ).length,
    ended: views.flatMap(({ stackId, view }) =>
      view && view.state === 'ended'
        ? [{ stackId, plan: view.plan, endedAt: view.endedAt, reason: view.reason }]
        : [],
    ),
  };
};

/** What the Plan Change preview says when the Stack's price is locked. */
export const confirmEndsLockWarning = (lock: PriceLock): string =>
  `This Stack keeps the Founding Price Lock at ${formatPrice(lock.monthlyPrice)} a month on the ${lock.plan} Plan. Confirming this change accepts the new Plan's price and ends the lock for good, even if the change then expires, is cancelled or rolls back; returning to the ${lock.plan} Plan later does not bring it back.`;

const formatPrice = (price: ListPrice): string =>
  `${price.currency === 'USD' ? 'US$' : `${price.currency} `}${(price.amount / 100).toFixed(2)}`;

/**
 * Should a Stack's billed price move to today's price of its Plan? Yes when it is billed at another
 * price, runs, has no Plan Change open (that change moves it) and its lock does not hold. Stacks
 * stored before the billed price was kept (none) are on the price of their day, left as they are.
 */
export const needsRepricing = (
  stack: {
    plan: PlanValue;
    lifecycle: string;
    billedPriceId?: string;
    priceLock?: PriceLock;
    openChange?: unknown;
  },
  todaysPriceId: string,
): boolean =>
  stack.lifecycle === 'running' &&
  stack.openChange === undefined &&
  stack.billedPriceId !== undefined &&
  stack.billedPriceId !== todaysPriceId &&
  !lockHolds(stack.priceLock, stack.plan);

/**
 * `PLAN_PRICES` (configuration): list prices that differ from the catalog's, as
 * `plan=amount` pairs in minor units (`plus=5500,pro=7000`). Unset or empty: the catalog's own.
 */
export const parsePlanPrices = (setting: string | undefined): Partial<Record<PlanValue, number>> => {
  const prices: Partial<Record<PlanValue, number>> = {};
  for (const entry of (setting ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const [name = '', amount = ''] = entry.split('=').map((part) => part.trim());
    const value = Number(amount);
    if (!isPlanValue(name) || !/^\d+$/.test(amount) || !Number.isSafeInteger(value) || value <= 0)
      throw new Error(
        `PLAN_PRICES must be plan=amount pairs in minor units (plans: ${PLAN_VALUES.join(', ')}), not "${entry}"`,
      );
    prices[name] = value;
  }
  return prices;
};

/** A Plan's list price today: configured in `PLAN_PRICES`, else the catalog's. */
export const listPriceOf = (plan: PlanValue, setting: string | undefined): Plan['monthlyPrice'] => {
  const amount = parsePlanPrices(setting)[plan];
  return amount === undefined ? PLANS[plan].monthlyPrice : { ...PLANS[plan].monthlyPrice, amount };
};

/** The Plan catalog with today's list prices, in the spec's order. */
export const catalogAt = (setting: string | undefined): Plan[] =>
  PLAN_VALUES.map((value) => ({ ...PLANS[value], monthlyPrice: listPriceOf(value, setting) }));
