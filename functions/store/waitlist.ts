import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { db, putIf, tableName, transactIf } from './client.ts';
import { entity, getOne, listAll } from './entity.ts';
import type { TransactItem } from './transact.ts';

const WaitlistEntrySchema = v.object({
  tenantId: v.string(),
  plan: v.picklist(PLAN_VALUES),
  region: v.string(),
  joinedAt: v.string(),
  joinedBy: v.string(),
  notifiedAt: v.optional(v.string()),
});
export type WaitlistEntry = v.InferOutput<typeof WaitlistEntrySchema>;

/** Entries still waiting are in this sparse index partition (GSI1); a notified one leaves it. */
const WAITING = 'WAITLIST';

/** A tenant's explicit wish to be told when a Plan can be placed (one per Plan). */
export const waitlist = entity({
  type: 'waitlist',
  key: (tenantId: string, plan: string) => ({ PK: `TENANT#${tenantId}`, SK: `WAITLIST#${plan}` }),
  schema: WaitlistEntrySchema,
  collection: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, prefix: 'WAITLIST#' }),
  indexes: {
    /** While waiting: oldest first per region and Plan. */
    waiting: (entry: { tenantId: string; plan: PlanValue; region: string }, joinedAt: string) => ({
      GSI1PK: WAITING,
      GSI1SK: `${entry.region}#${entry.plan}#${joinedAt}#${entry.tenantId}`,
    }),
  },
});

const WatchSchema = v.object({
  joins: v.optional(v.number(), 0),
  regions: v.optional(
    v.pipe(
      v.union([v.set(v.string()), v.array(v.string())]),
      v.transform((regions) => [...regions].sort()),
    ),
    [],
  ),
  checkedJoins: v.optional(v.number()),
  placeable: v.optional(v.record(v.string(), v.string()), {}),
  checkedAt: v.optional(v.string()),
});

/** What the sweep last saw of the waitlist: joins counted, placeable Plans per region (one item). */
export const waitlistWatch = entity({
  type: 'waitlist_watch',
  key: () => ({ PK: 'WAITLIST#WATCH', SK: 'WAITLIST#WATCH' }),
  schema: WatchSchema,
});

/**
 * Counts a join on the watch item (functions/reconciler/waitlist.ts reads the waitlist only when
 * the count or the placeable Plans changed). Written after the entry, on every join request (a
 * repeat too): a sweep that read the count before the entry existed sees a newer count next time.
 */
const countJoin = (region: string) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: waitlistWatch.key(),
      UpdateExpression: 'SET #type = :type ADD joins :one, regions :region',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': waitlistWatch.type, ':one': 1, ':region': new Set([region]) },
    }),
  );

/**
 * Joins the waitlist for a Plan, once per tenant and Plan: a repeat while waiting returns the
 * existing entry. An entry already notified is re-armed by joining again (the tenant missed the
 * place, say): it waits again from now, and will be notified again (a new email, keyed by the new
 * join time). Answers `created` for a new or re-armed entry.
 */
export const joinWaitlist = async (
  entry: { tenantId: string; plan: PlanValue; region: string; joinedBy: string },
  now: Date,
): Promise<{ entry: WaitlistEntry; created: boolean }> => {
  const created: WaitlistEntry = { ...entry, joinedAt: now.toISOString() };
  const joined = await putIf({
    Item: waitlist.item([entry.tenantId, entry.plan], {
      ...created,
      ...waitlist.index.waiting(entry, created.joinedAt),
    }),
    // A new entry, or a notified one joining again.
    ConditionExpression: 'attribute_not_exists(PK) OR attribute_exists(notifiedAt)',
  });
  await countJoin(entry.region);
  if (joined) return { entry: created, created: true };
  const waiting = await getOne(waitlist, entry.tenantId, entry.plan);
  if (!waiting) throw new Error('a waitlist entry refused a join and is gone');
  return { entry: waiting, created: false };
};

/** The tenant's waitlist entries, one per Plan, waiting or already notified. */
export const tenantWaitlist = (tenantId: string): Promise<WaitlistEntry[]> => listAll(waitlist, tenantId);

/** Entries read per query (injectable so that tests can page with a few entries). */
export const WAITLIST_PAGE = 200;

/**
 * Every entry still waiting, oldest first per region and Plan, read page by page to the end.
 * Reports the items it read.
 */
export const listWaitingEntries = async (
  pageSize: number = WAITLIST_PAGE,
): Promise<{ entries: WaitlistEntry[]; itemsRead: number }> => {
  const entries: WaitlistEntry[] = [];
  let itemsRead = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :waiting',
        ExpressionAttributeValues: { ':waiting': WAITING },
        Limit: pageSize,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) entries.push(waitlist.parse(item));
    itemsRead += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { entries, itemsRead };
};

/** Marks an entry notified together with its email in the outbox: both happen, once, or neither. */
export const notifyWaitlistEntry = async (
  entry: WaitlistEntry,
  email: TransactItem,
  now: Date,
): Promise<boolean> => {
  return transactIf([
    {
      Update: {
        TableName: tableName(),
        Key: waitlist.key(entry.tenantId, entry.plan),
        UpdateExpression: 'SET notifiedAt = :now REMOVE GSI1PK, GSI1SK',
        // The entry as read: not notified, and not re-armed since (that one gets its own email).
        ConditionExpression:
          'attribute_exists(PK) AND attribute_not_exists(notifiedAt) AND joinedAt = :joinedAt',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':joinedAt': entry.joinedAt },
      },
    },
    email,
  ]);
};

/** What the sweep last saw of the waitlist, and the joins counted since (functions/reconciler/waitlist.ts). */
export interface WaitlistWatch {
  /** Join requests counted so far. */
  joins: number;
  /** Regions anyone ever waited in. */
  regions: string[];
  /** `joins` as the last full read saw it (undefined: never read). */
  checkedJoins: number | undefined;
  /** The placeable Plans of each region at the last full read (`standard,plus`). */
  placeable: Record<string, string>;
  checkedAt: string | undefined;
}

export const readWaitlistWatch = async (): Promise<WaitlistWatch> => {
  const watch = (await getOne(waitlistWatch)) ?? v.parse(WatchSchema, {});
  return { ...watch, checkedJoins: watch.checkedJoins, checkedAt: watch.checkedAt };
};

/** Records a full read of the waitlist: the joins count read before it, the placeable Plans, the regions seen. */
export const recordWaitlistCheck = async (check: {
  joins: number;
  placeable: Record<string, string>;
  regions: string[];
  now: Date;
}): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: waitlistWatch.key(),
      UpdateExpression: `SET #type = :type, checkedJoins = :joins, placeable = :placeable, checkedAt = :now${check.regions.length > 0 ? ' ADD regions :regions' : ''}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': waitlistWatch.type,
        ':joins': check.joins,
        ':placeable': check.placeable,
        ':now': check.now.toISOString(),
        ...(check.regions.length > 0 ? { ':regions': new Set(check.regions) } : {}),
      },
    }),
  );
};
