import { randomUUID } from 'node:crypto';
import { type ItemChange, targetPriceOf } from '#core/stack-growth.ts';
import { clock } from '#ports/clock.ts';
import { logger } from '#ports/logger.ts';
import { recordAbandonedAddUndone } from '#ports/metrics.ts';
import { MIN_REQUEST_MS, processorTimeLeftMs, withProcessorDeadline } from '#ports/processor/deadline.ts';
import { ProcessorError } from '#ports/processor/errors.ts';
import { changeSubscriptionItems, commitItemChange, committedAdjustment } from '#ports/processor/items.ts';
import { subscriptionItems } from '#ports/processor/subscriptions.ts';
import { releaseReservation } from '#store/capacity.ts';
import { IDEMPOTENCY_HOURS } from '#store/idempotency.ts';
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
import { completePriceMove, discardPriceMove, getStack, type StoredStack } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';

/**
 * THE module every writer of a tenant's subscription item quantities uses (an added Stack, a Plan
 * Change's billing commit, a price move): each reads, computes and sends while holding the tenant's
 * subscription-items lease, through its journal (functions/store/item-lease.ts; docs/decisions.md,
 * "Subscription quantities: one writer at a time"). Also the price moves' journal names, which the
 * rollout and the commit (a move decided but not recorded is finished first) share.
 *
 * A request whose answer was lost is decided by reading, never sent again blindly: under the lease
 * nobody else changes the quantities, so the items show it applied (they hold its absolute
 * quantities) or not (they do not). Only a read that fails too leaves it undecided.
 */

/** How long a lease lasts: far longer than a holder's processor work (ITEM_LEASE_WORK_MS). */
export const ITEM_LEASE_SECONDS = 30;
/** Processor time a lease holder may use, so it never sends after its lease ran out. */
export const ITEM_LEASE_WORK_MS = 20_000;
/** Processor time a request needs before it is journaled: the send, and a read to decide it. */
const SEND_NEEDS_MS = 3 * MIN_REQUEST_MS;
/** Applied or refused entries nobody came back for are dropped after this many days. */
const PRUNE_DAYS = 7;
const DAY_MS = 86_400_000;

/** The journal owner of an added Stack's item change, and of its undoing. */
export const addOwner = (stackId: string) => `add-stack:${stackId}`;
const undoOwner = (stackId: string) => `add-stack-undo:${stackId}`;

/** Another writer holds the tenant's lease (or a request it left unanswered cannot be decided now). */
export class ItemLeaseBusy extends Error {
  readonly retryAfterSeconds: number;
  /** True when a request left unanswered could not be decided (the processor cannot be read). */
  readonly undecided: boolean;
  constructor(retryAfterSeconds: number, undecided = false) {
    super('another change of the subscription items is under way');
    this.name = 'ItemLeaseBusy';
    this.retryAfterSeconds = retryAfterSeconds;
    this.undecided = undecided;
  }
}

/**
 * A request sent under the lease whose answer was lost, and that a read could not decide either:
 * the processor may or may not have applied it. Its journal entry stays `sending`; the next holder
 * decides it by reading.
 */
export class ItemChangeUnknown extends ProcessorError {
  constructor(message: string) {
    super('unavailable', message);
    this.name = 'ItemChangeUnknown';
  }
}

/** The lease as its holder works with it. */
export interface HeldItemLease {
  /** The owner's journal entry (applied or refused; a `sending` one was decided on taking the lease). */
  entry(owner: string): ItemChangeEntry | undefined;
  /** Every entry whose owner starts with `prefix`. */
  entriesOf(prefix: string): ItemChangeEntry[];
  /**
   * Sends one request of `owner`: written into the journal first (only when enough processor time
   * is left to send it and read it back), then sent, then its answer recorded. The first request of
   * an owner goes with `baseKey`; after a refusal (the processor applied nothing) the owner decides
   * again from a fresh read under `baseKey:retry-<n>`. A lost answer is decided at once by reading:
   * applied, it answers as if the answer had come; not applied, the entry becomes `refused` and
   * the ProcessorError is thrown; a read that fails too throws ItemChangeUnknown (the entry stays
   * `sending`). `beforeSend` runs once it is in the journal; false drops it unsent.
   */
  send(params: {
    owner: string;
    baseKey: string;
    /** False: the owner never comes back for it (an added Stack without an Idempotency-Key). */
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

/**
 * Do the subscription's items hold the quantities a request set? Each price it names has exactly
 * that quantity (0: no item on it). A request always changes at least one quantity from the read
 * it was computed from, so under the lease this says whether the processor applied it.
 */
export const itemsShow = (
  current: readonly { priceId: string; quantity: number }[],
  requested: readonly { priceId: string; quantity: number }[],
): boolean =>
  requested.every(
    (wanted) =>
      current
        .filter((item) => item.priceId === wanted.priceId)
        .reduce((sum, item) => sum + item.quantity, 0) === wanted.quantity,
  );

type Outcome = { state: 'applied'; result?: ItemChangeEntry['result'] } | { state: 'refused' };

/**
 * Decides a request whose answer was lost, by reading the subscription's items: applied (a commit's
 * adjustment read from the pending prorations at its proration date) or not (`refused`: nothing was
 * applied). Throws the ProcessorError of a read that fails.
 */
const decideByReading = async (request: ItemChangeRequest): Promise<Outcome> => {
  const current = await subscriptionItems(request.subscriptionId);
  if (!itemsShow(current, request.items)) return { state: 'refused' };
  if (request.op !== 'commit') return { state: 'applied' };
  return {
    state: 'applied',
    result: await committedAdjustment(request.subscriptionId, new Date(request.prorationDate)),
  };
};

/** What a log line may say of a journal owner: its kind and our own id (never a processor id). */
export const ownerForLog = (owner: string): Record<string, string> => {
  const [kind = owner, id = ''] = owner.split(':');
  if (kind === 'plan-change') return { ownerKind: kind, changeId: id };
  if (kind === 'reprice' || kind === 'add-stack' || kind === 'add-stack-undo')
    return { ownerKind: kind, stackId: id };
  return { ownerKind: kind };
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
 * Is an applied add's Stack given up? Its owner never comes back for it (no Idempotency-Key), or
 * its key's life (24 h) is over, so no retry will create the Stack.
 */
const addGivenUp = (entry: ItemChangeEntry, now: Date): boolean =>
  entry.owner.startsWith('add-stack:') &&
  entry.state === 'applied' &&
  (!entry.replay || now.getTime() - Date.parse(entry.at) > IDEMPOTENCY_HOURS * 3_600_000);

/**
 * Whether the journal holds something a holder must settle (an entry whose answer was lost, an
 * added Stack's charge given up): the rollout takes the lease for it
 * even when no price is to move, so nothing waits for the tenant's next add or commit.
 */
export const journalNeedsSettling = (entries: readonly ItemChangeEntry[], now: Date): boolean =>
  entries.some((entry) => entry.state === 'sending' || addGivenUp(entry, now));

/**
 * Takes back the charge of an added Stack that will never exist (its add was applied, and its
 * owner gave up): one Stack less on the price the add raised, prorated (the credit offsets the
 * add's charge on the next invoice), journaled under `add-stack-undo:<tenant>:<stack>`; its held
 * place, if any, is released. The add's entry stays, `refused`, so a late retry of that add never
 * reuses its first key (the processor would replay the old answer without applying anything).
 */
const undoGivenUpAdd = async (lease: InternalLease, tenantId: string, entry: ItemChangeEntry) => {
  const stackId = entry.owner.slice('add-stack:'.length);
  if (await getStack(tenantId, stackId)) {
    // The Stack exists (its record and this entry should have gone together): only the entry is left.
    await lease.consume(entry);
    return;
  }
  const { subscriptionId } = entry.request;
  const priceId = entry.request.items[0]?.priceId;
  let undo = lease.entry(undoOwner(stackId));
  if (undo?.state !== 'applied' && priceId) {
    const item = (await subscriptionItems(subscriptionId)).find((i) => i.priceId === priceId);
    if (item)
      undo = await lease.send({
        owner: undoOwner(stackId),
        baseKey: `add-stack-undo:${tenantId}:${stackId}`,
        replay: true,
        request: {
          op: 'items',
          subscriptionId,
          items: [{ itemId: item.itemId, priceId, quantity: item.quantity - 1 }],
          proration: 'create_prorations',
        },
      });
  }
  const tenant = await getTenant(tenantId);
  if (tenant) await releaseReservation(tenant.homeRegion, `stack:${tenantId}:${stackId}`);
  await lease.settleAs(entry, { state: 'refused' });
  if (undo) await lease.consume(undo);
  recordAbandonedAddUndone();
  logger.error('an added Stack was billed but never created: its charge is taken back', {
    tenantId,
    stackId,
  });
};

/**
 * Settles what earlier holders left: a request whose answer was lost is decided by reading (so
 * every later read includes it or it never happened), an added Stack's charge whose owner gave up
 * is taken back, and old answers nobody came back for are pruned (never the entry of the owner
 * taking the lease: it came back, and its entry's attempt keeps the next key new). A request that
 * cannot be decided (the read fails) keeps the lease busy.
 */
const settle = async (
  lease: InternalLease,
  entries: Map<string, ItemChangeEntry>,
  takenBy: string,
): Promise<void> => {
  const now = clock().now();
  for (const entry of [...entries.values()]) {
    if (entry.state !== 'sending') continue;
    let outcome: Outcome;
    try {
      outcome = await decideByReading(entry.request);
    } catch (error) {
      if (!(error instanceof ProcessorError)) throw error;
      logger.warn('an unanswered item change cannot be decided now: the lease stays busy', {
        tenantId: lease.tenantId,
        ...ownerForLog(entry.owner),
      });
      throw new ItemLeaseBusy(ITEM_LEASE_SECONDS, true);
    }
    await lease.settleAs(entry, outcome);
    logger.info('an unanswered item change was decided by reading the items', {
      tenantId: lease.tenantId,
      ...ownerForLog(entry.owner),
      outcome: outcome.state,
    });
  }
  for (const entry of [...entries.values()]) {
    if (entry.owner === takenBy) continue;
    if (addGivenUp(entry, now)) {
      try {
        await undoGivenUpAdd(lease, lease.tenantId, entry);
      } catch (error) {
        // Not taken back now (the processor refused or did not answer): the next holder tries again.
        if (!(error instanceof ProcessorError)) throw error;
        logger.warn("an added Stack's charge given up could not be taken back now", {
          tenantId: lease.tenantId,
          ...ownerForLog(entry.owner),
        });
        // Its undo's outcome is unknown: nobody may read and send before it is decided.
        if (error instanceof ItemChangeUnknown) throw new ItemLeaseBusy(ITEM_LEASE_SECONDS, true);
      }
      continue;
    }
    // A commit's entry is its workflow's to remove (it always comes back, and its attempt keeps
    // the next key new), whatever its age: a commit can wait across a renewal.
    if (entry.owner.startsWith('plan-change:')) continue;
    if (entries.get(entry.owner) === entry && now.getTime() - Date.parse(entry.at) > PRUNE_DAYS * DAY_MS)
      await lease.consume(entry);
  }
};

/** The held lease with what settling needs besides. */
interface InternalLease extends HeldItemLease {
  tenantId: string;
  settleAs(entry: ItemChangeEntry, outcome: Outcome): Promise<void>;
}

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
  const settleAs = async (entry: ItemChangeEntry, outcome: Outcome) => {
    await settleItemChange(lease, entry.owner, entry.request.key, outcome);
    entries.set(entry.owner, {
      ...entry,
      state: outcome.state,
      ...(outcome.state === 'applied' && outcome.result ? { result: outcome.result } : {}),
    });
  };
  const held: InternalLease = {
    tenantId,
    settleAs,
    entry: (owner) => entries.get(owner),
    entriesOf: (prefix) => [...entries.values()].filter((entry) => entry.owner.startsWith(prefix)),
    send: async ({ owner, baseKey, replay, request, beforeSend }) => {
      const previous = entries.get(owner);
      const attempt = previous ? previous.attempt + (previous.state === 'refused' ? 1 : 0) : 0;
      // Journaled only when there is time to send it and read it back: an entry is never left
      // `sending` for a request that was not sent.
      const left = processorTimeLeftMs();
      if (left !== undefined && left < SEND_NEEDS_MS)
        throw new ProcessorError('unavailable', 'too little time left to send an item change', {
          notSent: true,
        });
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
      let outcome: Outcome;
      try {
        outcome = { state: 'applied', result: await sendRequest(entry.request) };
      } catch (error) {
        if (!(error instanceof ProcessorError)) throw error;
        if (error.kind === 'rejected' || error.notSent) {
          await settleAs(entry, { state: 'refused' });
          throw error;
        }
        // The answer was lost: nobody else changes the items under the lease, so a read decides.
        try {
          outcome = await decideByReading(entry.request);
        } catch (readError) {
          if (!(readError instanceof ProcessorError)) throw readError;
          logger.warn('an item change got no answer and cannot be read back: left to the next holder', {
            tenantId,
            ...ownerForLog(owner),
          });
          throw new ItemChangeUnknown(error.message);
        }
        logger.info('an item change got no answer and was decided by reading the items', {
          tenantId,
          ...ownerForLog(owner),
          outcome: outcome.state,
        });
        if (outcome.state === 'refused') {
          await settleAs(entry, outcome);
          throw error;
        }
      }
      await settleAs(entry, outcome);
      return entries.get(owner);
    },
    consume: async (entry) => {
      await consumeItemChange(tenantId, entry.owner, entry.request.key);
      entries.delete(entry.owner);
    },
  };
  const run = async () => {
    await settle(held, entries, holderOf);
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
 * dropped (the Stack stays at its price); one never sent is sent as it was decided.
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
