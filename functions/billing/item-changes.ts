import { randomUUID } from 'node:crypto';
import { type ItemChange, targetPriceOf } from '#core/stack-growth.ts';
import { logger } from '#http/logger.ts';
import { clock } from '#ports/clock.ts';
import {
  changeSubscriptionItems,
  commitItemChange,
  ProcessorError,
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
import { completePriceMove, discardPriceMove, type StoredStack } from '#store/stacks.ts';

/**
 * THE module every writer of a tenant's subscription item quantities uses (an added Stack, a Plan
 * Change's billing commit, a price move): each reads, computes and sends while holding the tenant's
 * subscription-items lease, through its journal (functions/store/item-lease.ts; docs/decisions.md,
 * "Subscription quantities: one writer at a time"). Also the price moves' journal names, which the
 * rollout and the commit (a move decided but not recorded is finished first) share.
 */

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
 * nobody came back for are pruned (never the entry of the owner taking the lease: it came back, and
 * its entry's attempt keeps the next key new). A request that still gets no answer keeps the lease busy.
 */
const settle = async (
  lease: ItemLease,
  entries: Map<string, ItemChangeEntry>,
  takenBy: string,
): Promise<void> => {
  const now = clock().now();
  for (const entry of [...entries.values()]) {
    const { owner, request } = entry;
    if (entry.state !== 'sending') {
      if (owner !== takenBy && now.getTime() - Date.parse(entry.at) > PRUNE_DAYS * 86_400_000) {
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
    await settle(lease, entries, holderOf);
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
// Price moves in the journal (decided by the rollout, finished by whoever meets one half done).

/** The journal owner of a Stack's move to a price. */
export const repriceOwner = (stackId: string, toPriceId: string) => `reprice:${stackId}:${toPriceId}`;

/**
 * Sends a Stack's move to `toPriceId` through the lease (no proration: the next invoice bills the
 * new price), under the move's key (`reprice:<tenant>:<stack>:<price>`, then `:retry-<n>`).
 */
export const sendPriceMove = (
  lease: HeldItemLease,
  params: {
    tenantId: string;
    stackId: string;
    toPriceId: string;
    subscriptionId: string;
    items: ItemChange[];
    beforeSend?: () => Promise<boolean>;
  },
): Promise<ItemChangeEntry | undefined> =>
  lease.send({
    owner: repriceOwner(params.stackId, params.toPriceId),
    baseKey: `reprice:${params.tenantId}:${params.stackId}:${params.toPriceId}`,
    replay: true,
    request: { op: 'items', subscriptionId: params.subscriptionId, items: params.items, proration: 'none' },
    ...(params.beforeSend ? { beforeSend: params.beforeSend } : {}),
  });

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
    .entriesOf(repriceOwner(stack.stackId, ''))
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
    entry = await sendPriceMove(lease, {
      tenantId,
      stackId: stack.stackId,
      toPriceId: move.toPriceId,
      subscriptionId,
      items: move.items,
    });
  await completePriceMove(tenantId, stack.stackId, move.toPriceId);
  if (entry) await lease.consume(entry);
  return move.toPriceId;
};
