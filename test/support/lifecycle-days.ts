import type { BillingState } from '#core/billing-state.ts';
import type { LifecycleState } from '#core/lifecycle.ts';

/**
 * The calendar the lifecycle rules' unit tests share: day 0 (`t0`), a day `at(n)` after it, and a
 * tenant's lifecycle state with its grace deadline (none unless given).
 */

export const DAY = 86_400_000;
export const t0 = new Date('2026-03-01T00:00:00Z');
export const at = (days: number) => new Date(t0.getTime() + days * DAY);
export const state = (s: BillingState, graceDeadline: Date | null = null): LifecycleState => ({
  state: s,
  graceDeadline: graceDeadline?.toISOString() ?? null,
});
