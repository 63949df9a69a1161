import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_CHANGE_STATUSES, PLAN_CHANGE_STEPS, TERMINAL_STATUSES } from '#core/plan-change.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { PLAN_CHANGE_REASONS } from '#core/tenant-reasons.ts';
import { db, tableName, updateIf } from './client.ts';
import { createPut, entity, getOne, listAll } from './entity.ts';
import type { TransactItem } from './transact.ts';

const AmountsSchema = v.object({
  currency: v.string(),
  subtotal: v.number(),
  discount: v.number(),
  tax: v.number(),
  total: v.number(),
  amountDue: v.number(),
  /**
   * The change's own prorations after the current discount, before tax (the final adjustment is
   * read on the same basis). On changes confirmed before the tax was kept, it was before the
   * discount too.
   */
  adjustment: v.number(),
  /** The tax estimate on it, and adjustment + tax (absent on changes confirmed before they were kept). */
  adjustmentTax: v.optional(v.number()),
  adjustmentTotal: v.optional(v.number()),
  invoiceAt: v.nullable(v.string()),
  /** The change's proration lines, in our words (absent on changes confirmed before they were kept). */
  lines: v.optional(
    v.array(v.object({ description: v.string(), amount: v.number(), discount: v.number(), tax: v.number() })),
  ),
});
export type ChangeAmounts = v.InferOutput<typeof AmountsSchema>;

const PlanChangeSchema = v.object({
  changeId: v.string(),
  tenantId: v.string(),
  stackId: v.string(),
  fromPlan: v.picklist(PLAN_VALUES),
  toPlan: v.picklist(PLAN_VALUES),
  status: v.picklist(PLAN_CHANGE_STATUSES),
  /** The workflow's next step (what a restarted execution resumes with). */
  step: v.picklist(PLAN_CHANGE_STEPS),
  confirmedAt: v.string(),
  /** Confirmation + 7 days: a change still waiting for capacity then expires. */
  expiresAt: v.string(),
  updatedAt: v.string(),
  /** The administrator who confirmed (the outcome email goes to them; never shown). */
  requestedBy: v.string(),
  region: v.string(),
  fromLocation: v.string(),
  /** Where the replacement goes, once a place is held (reservation holder `change:<id>`). */
  targetLocation: v.optional(v.string()),
  history: v.array(v.object({ status: v.picklist(PLAN_CHANGE_STATUSES), at: v.string() })),
  /** The processor's estimate shown at confirmation (null: it could not estimate). */
  estimate: v.nullable(AmountsSchema),
  /**
   * The adjustment the processor created at the billing commit (its proration lines, after the
   * discount each was made with, before tax), the tax the next invoice puts on them and the sum
   * of both (what the next invoice changes by); or 0 with `notBilled` when the tenant left before
   * the commit (nothing was sent to the processor). `adjustmentTax` and `adjustmentTotal` are
   * absent on changes committed before they were kept, and when no next invoice comes.
   */
  final: v.optional(
    v.object({
      adjustment: v.number(),
      adjustmentTax: v.optional(v.number()),
      adjustmentTotal: v.optional(v.number()),
      currency: v.string(),
      committedAt: v.string(),
      notBilled: v.optional(v.literal('account_closed')),
      /** The moment it was prorated from: `healthyAt`, or the period's start after a renewal. */
      proratedFrom: v.optional(v.string()),
      /** The billing period the commit was made in (absent on changes committed before it was kept). */
      period: v.optional(v.object({ start: v.string(), end: v.string() })),
    }),
  ),
  /** When the current step began (drain and Dispatcher steps give up after a limit). */
  stepStartedAt: v.string(),
  /** The desired-state version that carries the current step. */
  stepVersion: v.optional(v.number()),
  /**
   * Why it ended (or, from the roll back's decision, why it rolls back): a code of ours, whose
   * words the tenant reads (functions/core/tenant-reasons.ts).
   */
  reasonCode: v.optional(v.picklist(PLAN_CHANGE_REASONS)),
  /**
   * The Dispatcher's own words when it reported a step failed: for operators only (npm run ops --
   * plan-change show). No view, export or email reads it: it may name storage locations,
   * provider identifiers and operators.
   */
  dispatcherReason: v.optional(v.string()),
  /** Free text kept by records written before `reasonCode` (never shown: it may quote a Dispatcher). */
  outcome: v.optional(v.string()),
  /** The moment the replacement reported healthy (the proration date). */
  healthyAt: v.optional(v.string()),
  addressChanged: v.optional(v.boolean()),
  /** The subscription's items after the change, decided once before the first commit attempt. */
  billingItems: v.optional(
    v.array(v.object({ itemId: v.optional(v.string()), priceId: v.string(), quantity: v.number() })),
  ),
  /** Billing commit attempts the processor refused (the alarm counts them). */
  commitAttempts: v.optional(v.number(), 0),
  version: v.number(),
});
export type PlanChange = v.InferOutput<typeof PlanChangeSchema>;

/** The reservation holder of a change's place (one per change, apart from checkouts and added Stacks). */
export const changeHolder = (changeId: string): string => `change:${changeId}`;

/**
 * The sparse GSI2 partition of changes whose execution start is not known to have happened: a
 * change is recorded in it, sorted by the moment the sweep may start it (`startDueAt`), and leaves
 * it once a start was answered (functions/plan-changes/start.ts).
 */
const START_PENDING = 'PLANCHANGE#START';

/** A Plan Change of one of the tenant's Stacks (its id sorts by confirmation time). */
export const planChange = entity({
  type: 'plan_change',
  key: (tenantId: string, changeId: string) => ({ PK: `TENANT#${tenantId}`, SK: `PLANCHANGE#${changeId}` }),
  schema: PlanChangeSchema,
  collection: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, prefix: 'PLANCHANGE#' }),
  indexes: {
    /** Until its execution start is answered, from `startDueAt` on. */
    startPending: (change: Pick<PlanChange, 'tenantId' | 'changeId'>, startDueAt: string) => ({
      GSI2PK: START_PENDING,
      GSI2SK: `${startDueAt}#${change.tenantId}#${change.changeId}`,
    }),
  },
});

export const getPlanChange = (tenantId: string, changeId: string): Promise<PlanChange | undefined> =>
  getOne(planChange, tenantId, changeId);

/** The tenant's Plan Changes, oldest first (ids sort by confirmation time); one Stack's with `stackId`. */
export const listPlanChanges = async (tenantId: string, stackId?: string): Promise<PlanChange[]> =>
  (await listAll(planChange, tenantId)).filter(
    (change) => stackId === undefined || change.stackId === stackId,
  );

/**
 * The write that records a new change (once); with `startDueAt`, in the partition of changes whose
 * execution start is owed: the sweep starts it from then on unless a start is recorded first.
 */
export const planChangePut = (change: PlanChange, startDueAt?: string): TransactItem =>
  createPut(planChange, [change.tenantId, change.changeId], {
    ...change,
    ...(startDueAt === undefined ? {} : planChange.index.startPending(change, startDueAt)),
  });

/** A change whose execution start is owed (from the start-pending partition). */
export interface StartOwed {
  tenantId: string;
  changeId: string;
  startDueAt: string;
}

/** Changes whose execution start is owed and due at or before `now`, earliest first, at most `limit`. */
export const listStartsOwed = async (
  now: Date,
  limit: number,
): Promise<{ owed: StartOwed[]; itemsRead: number }> => {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :owed AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':owed': START_PENDING, ':now': `${now.toISOString()}#\uffff` },
      ProjectionExpression: 'tenantId, changeId, GSI2SK',
      Limit: limit,
    }),
  );
  return {
    owed: (page.Items ?? []).map((item) => ({
      tenantId: String(item.tenantId),
      changeId: String(item.changeId),
      startDueAt: String(item.GSI2SK).split('#')[0] ?? '',
    })),
    itemsRead: page.ScannedCount ?? 0,
  };
};

/**
 * Records that the change's execution start was answered: it leaves the start-pending partition.
 * Touches neither the version nor any field a task reads (a task's version-checked update still
 * applies). False when the change is gone.
 */
export const recordStartAnswered = (tenantId: string, changeId: string): Promise<boolean> =>
  updateIf({
    Key: planChange.key(tenantId, changeId),
    UpdateExpression: 'REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'attribute_exists(PK)',
  });

/**
 * The write that moves a change on from what was read: its new fields, one more history entry when
 * the status changes, and the next version; conditioned on the version read, so two tasks (or a
 * task and a cancel) never both move it.
 */
export const planChangeUpdate = (
  read: PlanChange,
  next: Partial<Omit<PlanChange, 'changeId' | 'tenantId' | 'version' | 'history'>>,
  now: Date,
): TransactItem => {
  const fields: Record<string, unknown> = {
    ...next,
    updatedAt: now.toISOString(),
    version: read.version + 1,
  };
  if (next.status !== undefined && next.status !== read.status)
    fields.history = [...read.history, { status: next.status, at: now.toISOString() }];
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':read': read.version };
  const sets: string[] = [];
  for (const [index, [name, value]] of Object.entries(fields).entries()) {
    if (value === undefined) continue;
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: planChange.key(read.tenantId, read.changeId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(PK) AND #version = :read',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * Every Plan Change that has not ended, in every tenant: a full table scan, for the local control
 * plane only (its Step Functions stand-in keeps executions in memory, so a restart resumes them).
 */
export const scanOpenPlanChanges = async (): Promise<PlanChange[]> => {
  const open: PlanChange[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#type = :type AND NOT #status IN (:s0, :s1, :s2, :s3, :s4)',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
        ExpressionAttributeValues: {
          ':type': planChange.type,
          ...Object.fromEntries(TERMINAL_STATUSES.map((status, index) => [`:s${index}`, status])),
        },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) open.push(planChange.parse(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return open;
};
