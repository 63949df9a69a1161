import { needsRepricing } from '#core/price-lock.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { logger } from '#ports/logger.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { readItemLease } from '#store/item-lease.ts';
import {
  completePriceMove,
  discardPriceMove,
  listStacks,
  recordPriceMove,
  type StoredStack,
} from '#store/stacks.ts';
import {
  type HeldItemLease,
  ItemLeaseBusy,
  journalNeedsSettling,
  repriceOwner,
  sendPriceMove,
  withItemLease,
} from './item-changes.ts';

/**
 * THE price rollout of one tenant, run by the sweep on each look at an active tenant whose
 * subscription is covered. A new price takes a Plan's lookup key over (`processor:sync` with
 * `PLAN_PRICES`); every running Stack whose Founding Price Lock does not hold and that is billed at
 * another price than its Plan's of the day moves to it: its item loses one, today's gains one,
 * with no proration, so the tenant keeps the period it paid and the next invoice bills the new
 * price. A locked Stack keeps its item on its old price. A Stack with a Plan Change open is left
 * to the change (which moves it to the new Plan's price of the day).
 *
 * A move is decided from a fresh read of the items while holding the tenant's subscription-items
 * lease, stored on the Stack (`priceMove`) and in the lease's journal before the processor is
 * asked, with a key made from the Stack and the price, so a retried look sends exactly the same
 * change (replayed by the processor) and never moves a Stack twice. A busy lease leaves the moves
 * to the next look. Answers how many Stacks moved.
 */
export const rollOutPrices = async (tenantId: string, subscriptionId: string, now: Date): Promise<number> => {
  // A look with nothing to move and nothing left in the journal to settle (a request whose answer
  // was lost, an added Stack's charge given up) takes no lease and writes nothing.
  const due = [];
  for (const stack of await listStacks(tenantId)) {
    if (stack.lifecycle !== 'running' || stack.openChange || stack.billedPriceId === undefined) continue;
    if (stack.priceMove || needsRepricing(stack, await priceIdForPlan(stack.plan, now.getTime())))
      due.push(stack);
  }
  if (due.length === 0 && !journalNeedsSettling((await readItemLease(tenantId))?.entries ?? [], now))
    return 0;
  let moved = 0;
  try {
    moved = await withItemLease(
      tenantId,
      'price-rollout',
      async (lease) => {
        let count = 0;
        // Read again under the lease: a confirmation or a completed change may have come meanwhile.
        for (const stack of await listStacks(tenantId)) {
          if (stack.lifecycle !== 'running' || stack.openChange || stack.billedPriceId === undefined)
            continue;
          if (await moveStack(lease, tenantId, subscriptionId, stack, now)) count++;
        }
        return count;
      },
      { deadline: true },
    );
  } catch (error) {
    if (!(error instanceof ItemLeaseBusy)) throw error;
    logger.info('price rollout left to the next look: the subscription items are being changed', {
      tenantId,
    });
  }
  if (moved > 0) logger.info('Stacks moved to the prices of the day', { tenantId, moved });
  return moved;
};

/** One Stack's move under the lease: decided (or carried on), sent, recorded. Answers whether it moved. */
const moveStack = async (
  lease: HeldItemLease,
  tenantId: string,
  subscriptionId: string,
  stack: StoredStack,
  now: Date,
): Promise<boolean> => {
  const billed = stack.billedPriceId as string;
  let move = stack.priceMove;
  if (move && move.fromPriceId !== billed) {
    // Billed at another price since it was decided (a Plan Change completed): no longer valid.
    logger.warn('a stale price move is discarded', { tenantId, stackId: stack.stackId });
    await discardPriceMove(tenantId, stack.stackId, move.toPriceId);
    const left = lease.entry(repriceOwner(stack.stackId, move.toPriceId));
    if (left) await lease.consume(left);
    return false;
  }
  const toPriceId = move?.toPriceId ?? (await priceIdForPlan(stack.plan, now.getTime()));
  if (!move && !needsRepricing(stack, toPriceId)) return false;
  const owner = repriceOwner(stack.stackId, toPriceId);
  let entry = lease.entry(owner);
  if (entry?.state === 'sending') entry = undefined;
  if (!move && entry?.state === 'applied') {
    // Sent (and settled) before the move could be stored on the Stack: store it now, as it was sent.
    move = { fromPriceId: billed, toPriceId, items: entry.request.items, decidedAt: now.toISOString() };
    if (!(await recordPriceMove(tenantId, stack, move))) return false;
  } else if (!move || entry?.state !== 'applied') {
    // A new move is decided from the items as they are now. One stored on the Stack is sent again
    // as it was when nothing says it was refused (it may have been applied); after a refusal, it is
    // decided again from the items as they are now.
    const items =
      move && entry?.state !== 'refused'
        ? move.items
        : itemsAfterPlanChange(await subscriptionItems(subscriptionId), billed, toPriceId);
    const decided = move ?? { fromPriceId: billed, toPriceId, items, decidedAt: now.toISOString() };
    entry = await sendPriceMove(lease, {
      tenantId,
      stackId: stack.stackId,
      toPriceId,
      subscriptionId,
      items,
      // A new move is stored on the Stack first; when another writer got there first (a
      // confirmation, another look), nothing is sent and the next look decides again.
      ...(move ? {} : { beforeSend: () => recordPriceMove(tenantId, stack, decided) }),
    });
    if (!entry) return false;
    move = decided;
  }
  const recorded = await completePriceMove(tenantId, stack.stackId, move.toPriceId);
  if (entry) await lease.consume(entry);
  return recorded;
};
