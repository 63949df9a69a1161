import type { PriceLock } from '#core/price-lock.ts';

/** A founding tenant's lock on the Plus Plan at US$50 a month, as the price-lock unit tests share it. */
export const locked: PriceLock = {
  state: 'locked',
  plan: 'plus',
  monthlyPrice: { amount: 5000, currency: 'USD' },
  lockedAt: '2026-08-15T10:00:00.000Z',
};
