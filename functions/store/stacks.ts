import * as v from 'valibot';
import { HEALTH_VALUES, type ObservedState, OPERATION_OUTCOMES } from '#core/dispatcher.ts';
import { PLAN_CHANGE_STATUSES } from '#core/plan-change.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { PRICE_LOCK_END_REASONS, PRICE_LOCK_STATES, type PriceLock } from '#core/price-lock.ts';
import { OPERATION_STEPS, renderDesiredState, STACK_LIFECYCLES, type StackRecord } from '#core/stacks.ts';
import { capacitySlot, reservation } from './capacity.ts';
import { getItem, tableName, transactIf, updateIf } from './client.ts';
import { dispatcherCredential } from './dispatcher.ts';
import { createPut, entity, listAll } from './entity.ts';
import type { TransactItem } from './transact.ts';

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
  /** Version of the desired state; every change of it adds one. */
  desiredVersion: v.optional(v.number(), 1),
  /** What the Stack's Dispatcher last reported. */
  observed: v.optional(
    v.object({
      appliedVersion: v.number(),
      health: v.picklist(HEALTH_VALUES),
      activeRuns: v.number(),
      localHostExecutor: v.boolean(),
      tornDown: v.boolean(),
      operation: v.optional(
        v.object({
          id: v.string(),
          step: v.picklist(['backup', 'switch', 'verify']),
          outcome: v.picklist(OPERATION_OUTCOMES),
          reason: v.optional(v.string()),
          addressChanged: v.optional(v.boolean()),
        }),
      ),
      reportedAt: v.string(),
    }),
  ),
  /** A Plan Change's operation on the Stack (rendered into the desired state). */
  operation: v.optional(
    v.object({
      kind: v.literal('plan_change'),
      id: v.string(),
      step: v.picklist(OPERATION_STEPS),
      target: v.object({ plan: v.picklist(PLAN_VALUES), location: v.string() }),
    }),
  ),
  /** The Stack's Plan Change that has not ended, with its status (conditions on confirm and teardown). */
  openChange: v.optional(v.object({ id: v.string(), status: v.picklist(PLAN_CHANGE_STATUSES) })),
  /** The Stack's export that has not ended (rendered into the desired state; one at a time). */
  runningExport: v.optional(v.object({ exportId: v.string(), requestedAt: v.string() })),
  /** SHA-256 of the Stack's current Dispatcher credential (never shown). */
  dispatcherCredentialHash: v.optional(v.string()),
  /** Projects registered on the Stack (kept with the Stack so the cap holds under concurrency). */
  projectCount: v.optional(v.number(), 0),
  /**
   * The processor price the Stack is billed at (internal, never shown): its subscription item is
   * the one on this price. Absent on Stacks stored before it was kept (billed at their Plan's
   * price of the day).
   */
  billedPriceId: v.optional(v.string()),
  /** The Founding Price Lock (only a founding tenant's first Stack ever has one). */
  priceLock: v.optional(
    v.object({
      state: v.picklist(PRICE_LOCK_STATES),
      plan: v.picklist(PLAN_VALUES),
      monthlyPrice: v.object({ amount: v.number(), currency: v.string() }),
      lockedAt: v.string(),
      endedAt: v.optional(v.string()),
      reason: v.optional(v.picklist(PRICE_LOCK_END_REASONS)),
    }),
  ),
  /** A move of the Stack to today's price of its Plan, decided once before the processor is asked. */
  priceMove: v.optional(
    v.object({
      fromPriceId: v.string(),
      toPriceId: v.string(),
      items: v.array(v.object({ itemId: v.optional(v.string()), priceId: v.string(), quantity: v.number() })),
      decidedAt: v.string(),
    }),
  ),
});
export type StoredStack = v.InferOutput<typeof StackSchema>;

/** A tenant's Stack, with its rendered desired state beside it (in the tenant's partition). */
export const stack = entity({
  type: 'stack',
  key: (tenantId: string, stackId: string) => ({ PK: `TENANT#${tenantId}`, SK: `STACK#${stackId}` }),
  schema: StackSchema,
  collection: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, prefix: 'STACK#' }),
});

/** A Stack record with what billing keeps on it: the price it is billed at and its price lock. */
export type BilledStack = StackRecord & { billedPriceId?: string; priceLock?: PriceLock };

/** The stored Stack with its rendered desired state beside it (what the Dispatcher reads). */
export const stackItem = (
  tenantId: string,
  record: BilledStack,
  place?: { region: string; placed: boolean },
) =>
  stack.item([tenantId, record.stackId], {
    tenantId,
    ...record,
    ...(place ? { region: place.region, placed: place.placed } : {}),
    desiredState: renderDesiredState(record),
    desiredVersion: 1,
    projectCount: 0,
  });

/**
 * One Stack of a tenant, or undefined. Read strongly consistent, unless the caller only polls
 * (`consistent: false`, half the read units): a Dispatcher's desired-state poll, for which a
 * version a second old is the same as a poll a second earlier.
 */
export const getStack = async (
  tenantId: string,
  stackId: string,
  options: { consistent?: boolean } = {},
): Promise<StoredStack | undefined> =>
  getItem(stack.key(tenantId, stackId), StackSchema, { consistent: options.consistent ?? true });

/** Stores what the Stack's Dispatcher reports (never a version the control plane has not published). */
export const recordObservedState = async (
  tenantId: string,
  stackId: string,
  observed: ObservedState,
): Promise<boolean> =>
  updateIf({
    Key: stack.key(tenantId, stackId),
    UpdateExpression: 'SET observed = :observed',
    ConditionExpression: 'attribute_exists(PK) AND desiredVersion >= :applied',
    ExpressionAttributeValues: { ':observed': observed, ':applied': observed.appliedVersion },
  });

export const listStacks = (tenantId: string): Promise<StoredStack[]> => listAll(stack, tenantId);

/**
 * Takes one place of a slot: never above its total, unless the place was `held` (a reservation
 * removed in the same transaction): a held place was promised when it was taken, and an operator
 * lowering the total meanwhile does not take it back.
 */
export const takePlace = (
  region: string,
  location: string,
  plan: string,
  options: { held?: boolean } = {},
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: capacitySlot.key(region, location, plan),
    UpdateExpression: 'ADD #used :one, #version :one',
    ConditionExpression: options.held ? 'attribute_exists(PK)' : 'attribute_exists(PK) AND #used < #total',
    ExpressionAttributeNames: options.held
      ? { '#used': 'used', '#version': 'version' }
      : { '#used': 'used', '#total': 'total', '#version': 'version' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/**
 * Moves one of a Stack's counters by one (the desired-state version, the Project count), on a
 * condition: `update` and `condition` name the step as `:one`.
 */
export const stackCounterWrite = (
  tenantId: string,
  stackId: string,
  update: string,
  condition: string,
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: stack.key(tenantId, stackId),
    UpdateExpression: update,
    ConditionExpression: condition,
    ExpressionAttributeValues: { ':one': 1 },
  },
});

/** Gives one place of a slot back. */
/** Gives `count` places of one slot back (one write per slot: a transaction may touch an item once). */
export const releasePlaces = (
  region: string,
  location: string,
  plan: string,
  count: number,
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: capacitySlot.key(region, location, plan),
    UpdateExpression: 'ADD #used :minus, #version :one',
    ConditionExpression: 'attribute_exists(PK) AND #used >= :count',
    ExpressionAttributeNames: { '#used': 'used', '#version': 'version' },
    ExpressionAttributeValues: { ':one': 1, ':minus': -count, ':count': count },
  },
});

/**
 * The writes that create a tenant's first Stack: the Stack (once), its place taken in its slot
 * (never above the total) when it has one, and the checkout's reservation, now a placement, removed.
 */
export const firstStackWrites = (params: {
  tenantId: string;
  region: string;
  stack: BilledStack;
  placed: boolean;
  reservationToRemove: boolean;
  /** Whose reservation becomes the placement (the tenant's checkout by default). */
  reservationHolder?: string;
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
  if (params.placed)
    writes.push(takePlace(region, stack.location, stack.plan, { held: params.reservationToRemove }));
  if (params.reservationToRemove)
    writes.push({
      Delete: { TableName: tableName(), Key: reservation.key(region, params.reservationHolder ?? tenantId) },
    });
  return writes;
};

/**
 * A change of the Stack's record and its desired state, with the next desired-state version;
 * what the Dispatcher reported, the credential and the Projects are kept as they are.
 */
const changeStack = (
  tenantId: string,
  stored: StoredStack,
  next: BilledStack,
  placed: boolean,
  openChange?: OpenChange | null,
): TransactItem => {
  // Only the Stack's own fields: what the Dispatcher reported, the credential and the Project count
  // are written by their own updates and must never be overwritten with what was read here.
  const fields: Record<string, unknown> = {
    name: next.name,
    plan: next.plan,
    location: next.location,
    resources: next.resources,
    runCap: next.runCap,
    reserveCap: next.reserveCap,
    watchedProjectsCap: next.watchedProjectsCap,
    lifecycle: next.lifecycle,
    teardownAt: next.teardownAt,
    admissionOpenUntilTeardown: next.admissionOpenUntilTeardown,
    tornDownAt: next.tornDownAt,
    operation: next.operation,
    // Billing's own fields ride along (absent ones are left as they are): the price lock ends in
    // the same write as what ended it (a confirmation, a leaving tenant), never apart from it.
    billedPriceId: next.billedPriceId,
    priceLock: next.priceLock,
    openChange: openChange ?? undefined,
    placed,
    desiredState: renderDesiredState(next),
    desiredVersion: stored.desiredVersion + 1,
  };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':was': stored.lifecycle, ':read': stored.desiredVersion };
  const sets: string[] = [];
  for (const [index, [name, value]] of Object.entries(fields).entries()) {
    if (value === undefined || name === 'stackId') continue;
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  }
  // An operation that ended is removed from the Stack (and so from its desired state).
  const removed = [
    ...(next.operation === undefined && stored.operation !== undefined ? ['operation'] : []),
    ...(openChange === null ? ['openChange'] : []),
  ];
  const removes = removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : '';
  return {
    Update: {
      TableName: tableName(),
      Key: stack.key(tenantId, stored.stackId),
      UpdateExpression: `SET ${sets.join(', ')}${removes}`,
      ConditionExpression:
        'attribute_exists(PK) AND lifecycle = :was AND (desiredVersion = :read OR (attribute_not_exists(desiredVersion) AND :read = :one))',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':one': 1 },
    },
  };
};

/** The Stack's Plan Change that has not ended: its id and status. */
export type OpenChange = NonNullable<StoredStack['openChange']>;

/**
 * A Stack changed by its Plan Change, with the change's pointer on it: set (`{id, status}`) while
 * the change runs, removed (`null`) when it ends. Conditioned on the desired-state version read.
 */
export const planChangeStackWrite = (
  tenantId: string,
  stored: StoredStack,
  next: BilledStack,
  openChange: OpenChange | null,
): TransactItem => changeStack(tenantId, stored, next, stored.placed ?? true, openChange);

/** Stores a changed Stack (and its desired state). */
export const stackUpdateWrite = (tenantId: string, stored: StoredStack, next: BilledStack): TransactItem =>
  changeStack(tenantId, stored, next, stored.placed ?? true);

/** Torn-down Stacks, and their places given back to their slots (one write per slot). */
export const teardownWrites = (
  tenantId: string,
  region: string,
  torn: { stored: StoredStack; next: BilledStack }[],
): TransactItem[] => {
  const writes: TransactItem[] = [];
  const places = new Map<string, { region: string; location: string; plan: string; count: number }>();
  for (const { stored, next } of torn) {
    const home = stored.region ?? region;
    writes.push(changeStack(tenantId, { ...stored, region: home }, next, false));
    if (stored.placed === false) continue;
    const slot = `${home}#${stored.location}#${stored.plan}`;
    const entry = places.get(slot) ?? {
      region: home,
      location: stored.location,
      plan: stored.plan,
      count: 0,
    };
    entry.count++;
    places.set(slot, entry);
  }
  for (const place of places.values())
    writes.push(releasePlaces(place.region, place.location, place.plan, place.count));
  return writes;
};

/**
 * Records the decided move of a Stack to today's price (the items to send, once): only when no
 * move is pending, the Stack is still billed at the price read and no Plan Change is open.
 */
export const recordPriceMove = (
  tenantId: string,
  stored: StoredStack,
  move: NonNullable<StoredStack['priceMove']>,
): Promise<boolean> =>
  updateIf({
    Key: stack.key(tenantId, stored.stackId),
    UpdateExpression: 'SET priceMove = :move',
    ConditionExpression:
      'attribute_exists(PK) AND attribute_not_exists(priceMove) AND billedPriceId = :billed AND attribute_not_exists(openChange)',
    ExpressionAttributeValues: { ':move': move, ':billed': stored.billedPriceId },
  });

/** A decided move that no longer fits the Stack (billed at another price since) is dropped. */
export const discardPriceMove = (tenantId: string, stackId: string, toPriceId: string): Promise<boolean> =>
  updateIf({
    Key: stack.key(tenantId, stackId),
    UpdateExpression: 'REMOVE priceMove',
    ConditionExpression: 'attribute_exists(PK) AND priceMove.toPriceId = :to',
    ExpressionAttributeValues: { ':to': toPriceId },
  });

/** The move is made at the processor: the Stack is billed at its new price from now on. */
export const completePriceMove = (tenantId: string, stackId: string, toPriceId: string): Promise<boolean> =>
  updateIf({
    Key: stack.key(tenantId, stackId),
    UpdateExpression: 'SET billedPriceId = :to REMOVE priceMove',
    ConditionExpression: 'attribute_exists(PK) AND priceMove.toPriceId = :to',
    ExpressionAttributeValues: { ':to': toPriceId },
  });

/**
 * Issues a Stack's Dispatcher credential (its hash stored, never the secret). The Stack's current
 * credential, if any, keeps working until `retiresAt`; one transaction, conditioned on the current
 * credential read, so two rotations at once cannot both win.
 */
export const issueDispatcherCredential = async (params: {
  tenantId: string;
  stackId: string;
  credentialId: string;
  secretHash: string;
  previousHash: string | undefined;
  now: Date;
  retiresAt: Date;
}): Promise<boolean> => {
  const { tenantId, stackId, now } = params;
  const items: TransactItem[] = [
    createPut(dispatcherCredential, [params.secretHash], {
      tenantId,
      stackId,
      credentialId: params.credentialId,
      issuedAt: now.toISOString(),
    }),
    {
      Update: {
        TableName: tableName(),
        Key: stack.key(tenantId, stackId),
        UpdateExpression: 'SET dispatcherCredentialHash = :new, dispatcherCredentialId = :id',
        ConditionExpression: params.previousHash
          ? 'attribute_exists(PK) AND dispatcherCredentialHash = :previous'
          : 'attribute_exists(PK) AND attribute_not_exists(dispatcherCredentialHash)',
        ExpressionAttributeValues: {
          ':new': params.secretHash,
          ':id': params.credentialId,
          ...(params.previousHash ? { ':previous': params.previousHash } : {}),
        },
      },
    },
  ];
  if (params.previousHash) {
    items.push({
      Update: {
        TableName: tableName(),
        Key: dispatcherCredential.key(params.previousHash),
        UpdateExpression: 'SET retiresAt = :retires, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':retires': params.retiresAt.toISOString(),
          ':ttl': Math.floor(params.retiresAt.getTime() / 1000) + 86_400,
        },
      },
    });
  }
  return transactIf(items);
};
