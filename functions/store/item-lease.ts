import * as v from 'valibot';
import { tableName, updateIf } from './client.ts';
import { entity, getOne } from './entity.ts';
import { type LeaseBusy, releaseLease, takeLease } from './lease.ts';
import type { TransactItem } from './transact.ts';

/**
 * THE lease on a tenant's subscription items, and the journal of the item changes sent under it.
 *
 * Every writer of the subscription's item quantities (an added Stack, a Plan Change's billing
 * commit, a price move) holds the lease around read-compute-write, so two of them never compute
 * from the same read. The lease is one item per tenant (the lease primitive of lease.ts): taken
 * with a conditional write when it is free or its time ran out, given back by its holder only; the
 * item stays while its journal has entries.
 *
 * Before a request is sent, the holder writes it into the journal (`sending`); a definite answer
 * makes it `applied` (with the adjustment a commit read) or `refused`. A request whose answer was
 * lost stays `sending`: the next holder, whoever it is, sends it again first, with the same key and
 * body, before it reads anything (the processor either replays its answer or applies it now), so
 * no later read can miss it. An entry stays until its owner has recorded the outcome (it removes
 * it in the same transaction), so the owner learns what happened even when someone else settled it.
 */

const ItemChangeSchema = v.object({
  itemId: v.optional(v.string()),
  priceId: v.string(),
  quantity: v.number(),
});

const RequestSchema = v.variant('op', [
  /** `changeSubscriptionItems`: an added Stack (prorated) or a price move (no proration). */
  v.object({
    op: v.literal('items'),
    subscriptionId: v.string(),
    items: v.array(ItemChangeSchema),
    key: v.string(),
    proration: v.picklist(['create_prorations', 'none']),
  }),
  /** `commitItemChange`: a Plan Change's billing commit, prorated from `prorationDate`. */
  v.object({
    op: v.literal('commit'),
    subscriptionId: v.string(),
    items: v.array(ItemChangeSchema),
    key: v.string(),
    prorationDate: v.string(),
  }),
]);
export type ItemChangeRequest = v.InferOutput<typeof RequestSchema>;

const EntrySchema = v.object({
  /** Who decided it (`plan-change:<id>`, `reprice:<stack>:<price>`, `add-stack:<stack>`). */
  owner: v.string(),
  request: RequestSchema,
  /** 0 for the first request of the owner; one more after each refusal (its key says it). */
  attempt: v.number(),
  state: v.picklist(['sending', 'applied', 'refused']),
  /**
   * Whether the next holder sends a `sending` entry again. False when its owner never sends it
   * again (an added Stack without an Idempotency-Key): then nothing stale can follow, and the
   * entry is dropped unsent (what the processor has is what later holders read).
   */
  replay: v.boolean(),
  /**
   * What a commit read back: the exact adjustment, the tax the next invoice puts on it (absent on
   * entries written before it was read, or when no next invoice comes), and the billing period.
   */
  result: v.optional(
    v.object({
      adjustment: v.number(),
      adjustmentTax: v.optional(v.number()),
      currency: v.string(),
      period: v.optional(v.object({ start: v.string(), end: v.string() })),
    }),
  ),
  /** When it was decided (old settled entries nobody came back for are pruned). */
  at: v.string(),
});
export type ItemChangeEntry = v.InferOutput<typeof EntrySchema>;

const LeaseSchema = v.object({
  tenantId: v.string(),
  holder: v.optional(v.string()),
  leaseUntil: v.optional(v.string()),
  entries: v.optional(v.record(v.string(), EntrySchema), {}),
});

/** The tenant's subscription-items lease and its journal of item changes (one item per tenant). */
export const itemLease = entity({
  type: 'item_lease',
  key: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, SK: 'ITEM_LEASE#subscription' }),
  schema: LeaseSchema,
});
const leaseKey = itemLease.key;

export type ItemLease = { tenantId: string; holder: string; until: string; entries: ItemChangeEntry[] };

/** The lease is busy until `busyUntil` (another holder works on the subscription's items). */
export type { LeaseBusy };

/**
 * Takes the tenant's lease for `seconds` from `now` when nobody holds it or its time ran out.
 * Answers the lease with every journal entry, or when it is busy.
 */
export const acquireItemLease = async (
  tenantId: string,
  holder: string,
  now: Date,
  seconds: number,
): Promise<ItemLease | LeaseBusy> => {
  const until = new Date(now.getTime() + seconds * 1000).toISOString();
  const taken = await takeLease(leaseKey(tenantId), {
    holder,
    type: itemLease.type,
    now,
    until,
    set: {
      expression: 'tenantId = :tenant, entries = if_not_exists(entries, :none)',
      values: { ':tenant': tenantId, ':none': {} },
    },
  });
  if ('busyUntil' in taken) return taken;
  const lease = itemLease.parse(taken.item);
  return { tenantId, holder, until, entries: Object.values(lease.entries) };
};

/** The lease item as stored (its holder, if any, and the journal), or undefined. */
export const readItemLease = async (
  tenantId: string,
): Promise<{ holder?: string; leaseUntil?: string; entries: ItemChangeEntry[] } | undefined> => {
  const lease = await getOne(itemLease, tenantId);
  if (!lease) return undefined;
  return {
    ...(lease.holder ? { holder: lease.holder } : {}),
    ...(lease.leaseUntil ? { leaseUntil: lease.leaseUntil } : {}),
    entries: Object.values(lease.entries),
  };
};

/** The entry name of an owner (journal entries are keyed by owner: one open request each). */
const entryName = (owner: string) => ({ '#entries': 'entries', '#owner': owner });

/**
 * Writes a request into the journal before it is sent: only while `holder` holds an unexpired
 * lease (a holder whose time ran out must not send). False when it no longer does.
 */
export const recordItemChange = (lease: ItemLease, entry: ItemChangeEntry, now: Date): Promise<boolean> =>
  updateIf({
    Key: leaseKey(lease.tenantId),
    UpdateExpression: 'SET #entries.#owner = :entry',
    ConditionExpression: 'holder = :holder AND leaseUntil > :now',
    ExpressionAttributeNames: entryName(entry.owner),
    ExpressionAttributeValues: { ':entry': entry, ':holder': lease.holder, ':now': now.toISOString() },
  });

/**
 * Records the definite answer to a journal entry (`applied`, with a commit's result, or `refused`),
 * by the holder that sent it; the entry must still be the request with `key`.
 */
export const settleItemChange = (
  lease: ItemLease,
  owner: string,
  key: string,
  outcome: { state: 'applied'; result?: ItemChangeEntry['result'] } | { state: 'refused' },
): Promise<boolean> =>
  updateIf({
    Key: leaseKey(lease.tenantId),
    UpdateExpression:
      outcome.state === 'applied' && outcome.result
        ? 'SET #entries.#owner.#state = :state, #entries.#owner.#result = :result'
        : 'SET #entries.#owner.#state = :state',
    ConditionExpression: 'holder = :holder AND #entries.#owner.#request.#key = :key',
    ExpressionAttributeNames: {
      ...entryName(owner),
      '#state': 'state',
      '#request': 'request',
      '#key': 'key',
      ...(outcome.state === 'applied' && outcome.result ? { '#result': 'result' } : {}),
    },
    ExpressionAttributeValues: {
      ':state': outcome.state,
      ':holder': lease.holder,
      ':key': key,
      ...(outcome.state === 'applied' && outcome.result ? { ':result': outcome.result } : {}),
    },
  });

/**
 * The write that removes an owner's journal entry (the request with `key`) once the owner recorded
 * its outcome: part of the owner's own transaction, so the outcome and the removal go together.
 */
export const consumeItemChangeWrite = (tenantId: string, owner: string, key: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: leaseKey(tenantId),
    UpdateExpression: 'REMOVE #entries.#owner',
    ConditionExpression: '#entries.#owner.#request.#key = :key',
    ExpressionAttributeNames: { ...entryName(owner), '#request': 'request', '#key': 'key' },
    ExpressionAttributeValues: { ':key': key },
  },
});

/** Removes an owner's journal entry on its own (when no other write records its outcome). */
export const consumeItemChange = async (tenantId: string, owner: string, key: string): Promise<boolean> => {
  const { Update } = consumeItemChangeWrite(tenantId, owner, key);
  return updateIf(Update as NonNullable<typeof Update>);
};

/**
 * Gives the lease back (only its holder can): the item goes when the journal is empty; otherwise
 * only the holder goes and the journal stays for its owners.
 */
export const releaseItemLease = (tenantId: string, holder: string): Promise<void> =>
  releaseLease(leaseKey(tenantId), holder, {
    condition: 'attribute_not_exists(entries) OR size(entries) = :zero',
    values: { ':zero': 0 },
  });
