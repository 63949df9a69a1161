import { randomUUID } from 'node:crypto';
import { needsRepricing } from '#core/price-lock.ts';
import { type ItemChange, itemsAfterPlanChange, targetPriceOf } from '#core/stack-growth.ts';
import { logger } from '#http/logger.ts';
import { clock } from '#ports/clock.ts';
import {
  changeSubscriptionItems,
  commitItemChange,
  ProcessorError,
  priceIdForPlan,
  subscriptionItems,
  withProcessorDeadline,
} from '#ports/processor.ts';
import {
  acquireItemLease,
  consumeItemChange,
  type ItemChangeEntry,
  type ItemChangeRequest,
  type ItemLease,
  recordItemChange,
  releaseItemLease,
  settleItemChange,
} from '#store/item-lease.ts';
import {
  completePriceMove,
  discardPriceMove,
  listStacks,
  recordPriceMove,
  type StoredStack,
} from '#store/stacks.ts';

// ---------------------------------------------------------------------------------------------
// The subscription-items lease: every writer of a tenant's item quantities (an added Stack, a Plan
// Change's billing commit, a price move) reads, computes and sends while holding it
// (functions/store/item-lease.ts; docs/decisions.md, "Subscription quantities: one writer at a time").

/** How long a lease lasts: far longer than a holder's processor work (ITEM_LEASE_WORK_MS). */
export const ITEM_LEASE_SECONDS = 30;
/** Processor time a lease holder may use, so it never sends after its lease ran out. */
export const ITEM_LEASE_WORK_MS = 20_000;
/** Applied or refused entries nobody came back for are dropped after this many days. */
const PRUNE_DAYS = 7;

/** Another writer holds the tenant's lease (or a request it left unanswered cannot be settled now). */
export class ItemLeaseBusy extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('another change of the subscription items is under way');
    this.name = 'ItemLeaseBusy';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The lease as its holder works with it. */
export interface HeldItemLease {
  /** The owner's journal entry (applied or refused; a `sending` one was settled on taking the lease). */
  entry(owner: string): ItemChangeEntry | undefined;
  /** Every entry whose owner starts with `prefix`. */
  entriesOf(prefix: string): ItemChangeEntry[];
  /**
   * Sends one request of `owner`: written into the journal first, then sent, then its answer
   * recorded. The first request of an owner goes with `baseKey`; after a refusal (the processor
   * applied nothing) the owner decides again from a fresh read under `baseKey:retry-<n>`. A lost
   * answer leaves it `sending`, and the ProcessorError is thrown: the next holder sends it again
   * as it was. `beforeSend` runs once it is in the journal; false drops it unsent.
   */
  send(params: {
    owner: string;
    baseKey: string;
    /** False: the owner never sends it again (an added Stack without an Idempotency-Key). */
    replay: boolean;
    request: DistributiveOmit<ItemChangeRequest, 'key'>;
    beforeSend?: () => Promise<boolean>;
  }): Promise<ItemChangeEntry | undefined>;
  /** Removes an entry once its owner recorded the outcome elsewhere. */
  consume(entry: ItemChangeEntry): Promise<void>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Sends a journal request to the processor as it is written (same key, same body). */
const sendRequest = async (request: ItemChangeRequest): Promise<ItemChangeEntry['result']> => {
  if (request.op === 'commit')
    return commitItemChange({
      subscriptionId: request.subscriptionId,
      items: request.items,
      prorationDate: new Date(request.prorationDate),
      idempotencyKey: request.key,
    });
  await changeSubscriptionItems(request.subscriptionId, request.items, request.key, request.proration);
  return undefined;
};

const keyOf = (baseKey: string, attempt: number) => (attempt === 0 ? baseKey : `${baseKey}:retry-${attempt}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the lease, waiting up to `waitMs` for a holder to finish. */
const acquire = async (tenantId: string, holder: string, waitMs: number): Promise<ItemLease> => {
  const started = performance.now();
  for (;;) {
    const now = clock().now();
    const taken = await acquireItemLease(tenantId, holder, now, ITEM_LEASE_SECONDS);
    if ('holder' in taken) return taken;
    const busyFor = Math.max(0, Date.parse(taken.busyUntil) - now.getTime());
    const left = waitMs - (performance.now() - started);
    if (left <= 0)
      throw new ItemLeaseBusy(Math.min(ITEM_LEASE_SECONDS, Math.max(1, Math.ceil(busyFor / 1000))));
    await sleep(Math.min(200, left));
  }
};

/**
 * Settles what earlier holders left: a request whose answer was lost is sent again as it was (so
 * every later read includes it), one whose owner never sends it again is dropped, and old answers
 * nobody came back for are pruned. A request that still gets no answer keeps the lease busy.
 */
const settle = async (lease: ItemLease, entries: Map<string, ItemChangeEntry>): Promise<void> => {
  const now = clock().now();
  for (const entry of [...entries.values()]) {
    const { owner, request } = entry;
    if (entry.state !== 'sending') {
      if (now.getTime() - Date.parse(entry.at) > PRUNE_DAYS * 86_400_000) {
        await consumeItemChange(lease.tenantId, owner, request.key);
        entries.delete(owner);
      }
      continue;
    }
    if (!entry.replay) {
      logger.warn('an unanswered item change its owner never sends again is dropped', {
        tenantId: lease.tenantId,
        owner,
      });
      await consumeItemChange(lease.tenantId, owner, request.key);
      entries.delete(owner);
      continue;
    }
    try {
      const result = await sendRequest(request);
      await settleItemChange(lease, owner, request.key, { state: 'applied', ...(result ? { result } : {}) });
      entries.set(owner, { ...entry, state: 'applied', ...(result ? { result } : {}) });
    } catch (error) {
      if (!(error instanceof ProcessorError)) throw error;
      if (error.kind === 'unavailable') {
        logger.warn('an unanswered item change is still unanswered; the lease stays busy', {
          tenantId: lease.tenantId,
          owner,
        });
        throw new ItemLeaseBusy(ITEM_LEASE_SECONDS);
      }
      await settleItemChange(lease, owner, request.key, { state: 'refused' });
      entries.set(owner, { ...entry, state: 'refused' });
    }
  }
};

/**
 * Runs `work` holding the tenant's subscription-items lease: what earlier holders left is settled
 * first, then `work` reads the items fresh, decides and sends through the lease. Throws
 * ItemLeaseBusy when another holder keeps it longer than `waitMs`. With `deadline`, the processor
 * requests made under the lease stop well before it runs out (callers with their own shorter
 * deadline, such as an API request, leave it off).
 */
export const withItemLease = async <T>(
  tenantId: string,
  holderOf: string,
  work: (lease: HeldItemLease) => Promise<T>,
  options: { waitMs?: number; deadline?: boolean } = {},
): Promise<T> => {
  const holder = `${holderOf}#${randomUUID()}`;
  const lease = await acquire(tenantId, holder, options.waitMs ?? 0);
  const entries = new Map(lease.entries.map((entry) => [entry.owner, entry]));
  const held: HeldItemLease = {
    entry: (owner) => entries.get(owner),
    entriesOf: (prefix) => [...entries.values()].filter((entry) => entry.owner.startsWith(prefix)),
    send: async ({ owner, baseKey, replay, request, beforeSend }) => {
      const previous = entries.get(owner);
      const attempt = previous ? previous.attempt + (previous.state === 'refused' ? 1 : 0) : 0;
      const now = clock().now();
      const entry: ItemChangeEntry = {
        owner,
        request: { ...request, key: keyOf(baseKey, attempt) } as ItemChangeRequest,
        attempt,
        state: 'sending',
        replay,
        at: now.toISOString(),
      };
      if (!(await recordItemChange(lease, entry, now))) throw new ItemLeaseBusy(1);
      entries.set(owner, entry);
      if (beforeSend && !(await beforeSend())) {
        await consumeItemChange(tenantId, owner, entry.request.key);
        entries.delete(owner);
        return undefined;
      }
      let result: ItemChangeEntry['result'];
      try {
        result = await sendRequest(entry.request);
      } catch (error) {
        if (error instanceof ProcessorError && error.kind === 'rejected') {
          await settleItemChange(lease, owner, entry.request.key, { state: 'refused' });
          entries.set(owner, { ...entry, state: 'refused' });
        }
        throw error;
      }
      const applied: ItemChangeEntry = { ...entry, state: 'applied', ...(result ? { result } : {}) };
      await settleItemChange(lease, owner, entry.request.key, {
        state: 'applied',
        ...(result ? { result } : {}),
      });
      entries.set(owner, applied);
      return applied;
    },
    consume: async (entry) => {
      await consumeItemChange(tenantId, entry.owner, entry.request.key);
      entries.delete(entry.owner);
    },
  };
  const run = async () => {
    await settle(lease, entries);
    return work(held);
  };
  try {
    return await (options.deadline
      ? withProcessorDeadline(performance.now() + ITEM_LEASE_WORK_MS, run)
      : run());
  } finally {
    await releaseItemLease(tenantId, holder);
  }
};

// ---------------------------------------------------------------------------------------------
// The price rollout.

/** The journal owner of a Stack's move to a price. */
const repriceOwner = (stackId: string, toPriceId: string) => `reprice:${stackId}:${toPriceId}`;
const repriceKey = (tenantId: string, stackId: string, toPriceId: string) =>
  `reprice:${tenantId}:${stackId}:${toPriceId}`;

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
  // A look with nothing to move takes no lease and writes nothing.
  const due = [];
  for (const stack of await listStacks(tenantId)) {
    if (stack.lifecycle !== 'running' || stack.openChange || stack.billedPriceId === undefined) continue;
    if (stack.priceMove || needsRepricing(stack, await priceIdForPlan(stack.plan, now.getTime())))
      due.push(stack);
  }
  if (due.length === 0) return 0;
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
  if (!move) {
    const decidedAt = now.toISOString();
    if (entry?.state === 'applied') {
      // Sent (and settled) before the move could be stored on the Stack: store it now, as it was sent.
      move = { fromPriceId: billed, toPriceId, items: entry.request.items, decidedAt };
      if (!(await recordPriceMove(tenantId, stack, move))) return false;
    } else {
      const items = itemsAfterPlanChange(await subscriptionItems(subscriptionId), billed, toPriceId);
      const decided = { fromPriceId: billed, toPriceId, items, decidedAt };
      entry = await lease.send({
        owner,
        baseKey: repriceKey(tenantId, stack.stackId, toPriceId),
        replay: true,
        request: { op: 'items', subscriptionId, items, proration: 'none' },
        // Another writer got there first (a confirmation, another look): the next look decides again.
        beforeSend: () => recordPriceMove(tenantId, stack, decided),
      });
      if (!entry) return false;
      move = decided;
    }
  } else if (entry?.state !== 'applied') {
    // A move stored on the Stack: sent again as it was when nothing says it was refused (it may
    // have been applied); after a refusal, decided again from the items as they are now.
    const items =
      entry?.state === 'refused'
        ? itemsAfterPlanChange(await subscriptionItems(subscriptionId), billed, toPriceId)
        : move.items;
    entry = await lease.send({
      owner,
      baseKey: repriceKey(tenantId, stack.stackId, toPriceId),
      replay: true,
      request: { op: 'items', subscriptionId, items, proration: 'none' },
    });
  }
  const recorded = await completePriceMove(tenantId, stack.stackId, move.toPriceId);
  if (entry) await lease.consume(entry);
  return recorded;
};

/**
 * The price a Stack is billed at, under the lease, with a move decided for it finished first: a
 * look that stopped between deciding and recording a move leaves it pending, and a Plan Change's
 * billing commit must start from where the processor really is. A move the processor refused is
 * dropped (the Stack stays at its price); one not answered is sent again as it was.
 */
export const settledBilledPrice = async (
  lease: HeldItemLease,
  tenantId: string,
  stack: StoredStack,
  subscriptionId: string,
): Promise<string | undefined> => {
  const billed = stack.billedPriceId;
  // A move sent and applied whose Stack record never heard of it (its look stopped in between).
  const applied = lease
    .entriesOf(`reprice:${stack.stackId}:`)
    .find((entry) => entry.state === 'applied' && entry.request.items[0]?.priceId === billed);
  const move = stack.priceMove;
  if (!move || move.fromPriceId !== billed) {
    if (!applied) return billed;
    const to = targetPriceOf(applied.request.items as ItemChange[]);
    await lease.consume(applied);
    return to ?? billed;
  }
  const owner = repriceOwner(stack.stackId, move.toPriceId);
  let entry = lease.entry(owner);
  if (entry?.state === 'refused') {
    await discardPriceMove(tenantId, stack.stackId, move.toPriceId);
    await lease.consume(entry);
    return billed;
  }
  if (entry?.state !== 'applied')
    entry = await lease.send({
      owner,
      baseKey: repriceKey(tenantId, stack.stackId, move.toPriceId),
      replay: true,
      request: { op: 'items', subscriptionId, items: move.items, proration: 'none' },
    });
  await completePriceMove(tenantId, stack.stackId, move.toPriceId);
  if (entry) await lease.consume(entry);
  return move.toPriceId;
};
