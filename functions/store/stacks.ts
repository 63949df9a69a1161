import { QueryCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { renderDesiredState, STACK_LIFECYCLES, type StackRecord } from '#core/stacks.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const StackSchema = v.object({
  stackId: v.string(),
  name: v.string(),
  plan: v.picklist(PLAN_VALUES),
  location: v.string(),
  resources: v.object({
    vcpu: v.number(),
    vcpuKind: v.literal('shared'),
    memoryGb: v.number(),
    storageGb: v.number(),
  }),
  runCap: v.number(),
  reserveCap: v.number(),
  watchedProjectsCap: v.number(),
  lifecycle: v.picklist(STACK_LIFECYCLES),
  createdAt: v.string(),
  teardownAt: v.optional(v.string()),
  admissionOpenUntilTeardown: v.optional(v.boolean()),
  tornDownAt: v.optional(v.string()),
  /** The Home Region whose inventory holds the Stack's place (absent on Stacks stored before it was kept). */
  region: v.optional(v.string()),
  /** Whether the Stack holds a counted capacity place (absent: it does when its location has a slot). */
  placed: v.optional(v.boolean()),
});
export type StoredStack = v.InferOutput<typeof StackSchema>;

/** The stored Stack with its rendered desired state beside it (what the Dispatcher reads). */
export const stackItem = (
  tenantId: string,
  stack: StackRecord,
  place?: { region: string; placed: boolean },
) => ({
  ...keys.stack(tenantId, stack.stackId),
  type: 'stack',
  tenantId,
  ...stack,
  ...(place ? { region: place.region, placed: place.placed } : {}),
  desiredState: renderDesiredState(stack),
});

export const listStacks = async (tenantId: string): Promise<StoredStack[]> => {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :stack)',
      ExpressionAttributeValues: { ':pk': keys.tenant(tenantId).PK, ':stack': 'STACK#' },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => v.parse(StackSchema, item));
};

/** Takes one place of a slot: never above its total. */
const takePlace = (region: string, location: string, plan: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.capacity(region, location, plan),
    UpdateExpression: 'ADD #used :one, #version :one',
    ConditionExpression: 'attribute_exists(PK) AND #used < #total',
    ExpressionAttributeNames: { '#used': 'used', '#total': 'total', '#version': 'version' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/** Gives one place of a slot back. */
const releasePlace = (region: string, location: string, plan: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.capacity(region, location, plan),
    UpdateExpression: 'ADD #used :minus, #version :one',
    ConditionExpression: 'attribute_exists(PK) AND #used >= :one',
    ExpressionAttributeNames: { '#used': 'used', '#version': 'version' },
    ExpressionAttributeValues: { ':one': 1, ':minus': -1 },
  },
});

/**
 * The writes that create a tenant's first Stack: the Stack (once), its place taken in its slot
 * (never above the total) when it has one, and the checkout's reservation, now a placement, removed.
 */
export const firstStackWrites = (params: {
  tenantId: string;
  region: string;
  stack: StackRecord;
  placed: boolean;
  reservationToRemove: boolean;
}): TransactItem[] => {
  const { tenantId, region, stack } = params;
  const writes: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: stackItem(tenantId, stack, { region, placed: params.placed }),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  if (params.placed) writes.push(takePlace(region, stack.location, stack.plan));
  if (params.reservationToRemove)
    writes.push({ Delete: { TableName: tableName(), Key: keys.reservation(region, tenantId) } });
  return writes;
};

/** Stores a changed Stack (and its desired state) as a whole. */
export const stackUpdateWrite = (tenantId: string, stored: StoredStack, next: StackRecord): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: stackItem(tenantId, next, {
      region: stored.region ?? '',
      placed: stored.placed ?? true,
    }),
    ConditionExpression: 'attribute_exists(PK) AND lifecycle = :was',
    ExpressionAttributeValues: { ':was': stored.lifecycle },
  },
});

/** A torn-down Stack, and its place given back to its slot. */
export const teardownWrites = (
  tenantId: string,
  region: string,
  stored: StoredStack,
  next: StackRecord,
): TransactItem[] => {
  const writes: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: stackItem(tenantId, next, { region: stored.region ?? region, placed: false }),
        ConditionExpression: 'attribute_exists(PK) AND lifecycle = :was',
        ExpressionAttributeValues: { ':was': stored.lifecycle },
      },
    },
  ];
  if (stored.placed !== false)
    writes.push(releasePlace(stored.region ?? region, stored.location, stored.plan));
  return writes;
};
