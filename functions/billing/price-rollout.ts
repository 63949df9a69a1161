import { needsRepricing } from '#core/price-lock.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { logger } from '#http/logger.ts';
import { changeSubscriptionItems, priceIdForPlan, subscriptionItems } from '#ports/processor.ts';
import {
  completePriceMove,
  discardPriceMove,
  listStacks,
  recordPriceMove,
  type StoredStack,
} from '#store/stacks.ts';

/**
 * THE price rollout of one tenant, run by the sweep on each look at an active tenant whose
 * subscription is covered. A new price takes a Plan's lookup key over (`processor:sync` with
 * `PLAN_PRICES`); every running Stack whose Founding Price Lock does not hold and that is billed at
 * another price than its Plan's of the day moves to it: its item loses one, today's gains one,
 * with no proration, so the tenant keeps the period it paid and the next invoice bills the new
 * price. A locked Stack keeps its item on its old price. A Stack with a Plan Change open is left
 * to the change (which moves it to the new Plan's price of the day).
 *
 * Each move is decided once and stored on the Stack (`priceMove`) before the processor is asked,
 * with a key made from the Stack and the price, so a retried look sends exactly the same change
 * (replayed by the processor) and never moves a Stack twice. Answers how many Stacks moved.
 */
export const rollOutPrices = async (tenantId: string, subscriptionId: string, now: Date): Promise<number> => {
  let moved = 0;
  for (const stack of await listStacks(tenantId)) {
    if (stack.lifecycle !== 'running' || stack.openChange || stack.billedPriceId === undefined) continue;
    let move = stack.priceMove;
    if (move && move.fromPriceId !== stack.billedPriceId) {
      // Billed at another price since it was decided (a Plan Change completed): no longer valid.
      logger.warn('a stale price move is discarded', { tenantId, stackId: stack.stackId });
      await discardPriceMove(tenantId, stack.stackId, move.toPriceId);
      continue;
    }
    if (!move) {
      const today = await priceIdForPlan(stack.plan, now.getTime());
      if (!needsRepricing(stack, today)) continue;
      const decided = {
        fromPriceId: stack.billedPriceId,
        toPriceId: today,
        items: itemsAfterPlanChange(await subscriptionItems(subscriptionId), stack.billedPriceId, today),
        decidedAt: now.toISOString(),
      };
      // Another writer got there first (a confirmation, another look): the next look decides again.
      if (!(await recordPriceMove(tenantId, stack, decided))) continue;
      move = decided;
    }
    if (await sendPriceMove(tenantId, stack.stackId, subscriptionId, move)) moved++;
  }
  if (moved > 0) logger.info('Stacks moved to the prices of the day', { tenantId, moved });
  return moved;
};

type PriceMove = NonNullable<StoredStack['priceMove']>;

/** Sends a decided move (replayed by the processor when it was sent before), then records it. */
const sendPriceMove = async (
  tenantId: string,
  stackId: string,
  subscriptionId: string,
  move: PriceMove,
): Promise<boolean> => {
  await changeSubscriptionItems(
    subscriptionId,
    move.items,
    `reprice:${tenantId}:${stackId}:${move.toPriceId}`,
    'none',
  );
  return completePriceMove(tenantId, stackId, move.toPriceId);
};

/**
 * The price a Stack is billed at, with a move decided for it finished first: a look that stopped
 * between deciding and recording a move leaves it pending, and a Plan Change's billing commit must
 * start from where the processor really is. Sending it again is safe (same key, same request).
 */
export const settledBilledPrice = async (
  tenantId: string,
  stack: StoredStack,
  subscriptionId: string,
): Promise<string | undefined> => {
  const move = stack.priceMove;
  if (!move || move.fromPriceId !== stack.billedPriceId) return stack.billedPriceId;
  await sendPriceMove(tenantId, stack.stackId, subscriptionId, move);
  return move.toPriceId;
};
