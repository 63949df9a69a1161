import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import {
  type CapacitySlot,
  chooseLocation,
  freeSlots,
  type Inventory,
  placeablePlans,
  type Reservation,
  withoutReservationOf,
} from '#core/placement.ts';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { db, tableName, transactIf } from './client.ts';
import { entity } from './entity.ts';
import type { TransactItem } from './transact.ts';

const SlotSchema = v.object({
  type: v.literal('capacity'),
  region: v.string(),
  location: v.string(),
  plan: v.picklist(PLAN_VALUES),
  total: v.pipe(v.number(), v.integer(), v.minValue(0)),
  used: v.pipe(v.number(), v.integer(), v.minValue(0)),
  version: v.optional(v.number(), 0),
});

const ReservationSchema = v.object({
  type: v.literal('reservation'),
  tenantId: v.string(),
  region: v.string(),
  location: v.string(),
  plan: v.picklist(PLAN_VALUES),
  expiresAt: v.string(),
});

/** A Home Region's capacity: its slots and reservations stand in one partition, read with one query. */
const regionPartition = (region: string) => `CAPACITY#${region}`;

/** A slot: how many places of a Plan one location has (`total`) and how many are taken (`used`). */
export const capacitySlot = entity({
  type: 'capacity',
  key: (region: string, location: string, plan: string) => ({
    PK: regionPartition(region),
    SK: `LOCATION#${location}#PLAN#${plan}`,
  }),
  schema: SlotSchema,
});

/** A place held for a tenant's open first checkout or a Plan Change (at most one per holder and region). */
export const reservation = entity({
  type: 'reservation',
  key: (region: string, holder: string) => ({ PK: regionPartition(region), SK: `RESERVATION#${holder}` }),
  schema: ReservationSchema,
});

interface VersionedInventory extends Inventory {
  versions: Map<string, number>;
}

const slotKey = (slot: Pick<CapacitySlot, 'location' | 'plan'>) => `${slot.location}#${slot.plan}`;

/** Every slot and reservation of one Home Region: one query on one partition. */
const readInventory = async (region: string): Promise<VersionedInventory> => {
  const inventory: VersionedInventory = { slots: [], reservations: [], versions: new Map() };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': regionPartition(region) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.type === capacitySlot.type) {
        const { version, type: _type, ...slot } = capacitySlot.parse(item);
        inventory.slots.push(slot);
        inventory.versions.set(slotKey(slot), version);
      } else if (item.type === reservation.type) {
        const { type: _type, ...held } = reservation.parse(item);
        inventory.reservations.push(held);
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return inventory;
};

export const listInventory = async (region: string): Promise<Inventory> => {
  const { slots, reservations } = await readInventory(region);
  return { slots, reservations };
};

/** Sets a slot's total; its `used` count is kept (zero for a new slot). One atomic update. */
export const setCapacityTotal = async (
  slot: Pick<CapacitySlot, 'region' | 'location' | 'plan' | 'total'>,
  now: Date,
): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: capacitySlot.key(slot.region, slot.location, slot.plan),
      UpdateExpression:
        'SET #type = :type, #region = :region, #location = :location, #plan = :plan, #total = :total, #used = if_not_exists(#used, :zero), #updatedAt = :now, #version = if_not_exists(#version, :zero) + :one',
      ExpressionAttributeNames: {
        '#type': 'type',
        '#region': 'region',
        '#location': 'location',
        '#plan': 'plan',
        '#total': 'total',
        '#used': 'used',
        '#updatedAt': 'updatedAt',
        '#version': 'version',
      },
      ExpressionAttributeValues: {
        ':type': capacitySlot.type,
        ':region': slot.region,
        ':location': slot.location,
        ':plan': slot.plan,
        ':total': slot.total,
        ':zero': 0,
        ':one': 1,
        ':now': now.toISOString(),
      },
    }),
  );
};

/**
 * A slot's whole item with the places already in use, for putting a fleet's inventory in at once
 * (the scale bench seeds thousands of placed Stacks in bulk: one item per slot, not one update per
 * Stack). `used` must count the placed Stacks of the slot, and never exceed `total`.
 */
export const capacitySlotItem = (slot: CapacitySlot, now: Date) => {
  if (slot.used > slot.total)
    throw new Error(`a slot cannot use ${slot.used} places of ${slot.total} (${slot.location} ${slot.plan})`);
  return capacitySlot.item([slot.region, slot.location, slot.plan], {
    region: slot.region,
    location: slot.location,
    plan: slot.plan,
    total: slot.total,
    used: slot.used,
    updatedAt: now.toISOString(),
    version: 1,
  });
};

export type ReserveOutcome = { reserved: Reservation } | { reserved: undefined; availablePlans: PlanValue[] };

/**
 * The writes that hold one place of `slot` for `holder`: the reservation, and a bump of the slot's
 * version conditioned on the version read, so two holders racing for the last place cannot both
 * get it. A holder's earlier reservation in the region is replaced.
 */
const reservationWrites = (
  inventory: VersionedInventory,
  held: Reservation,
  slot: CapacitySlot,
): TransactItem[] => {
  const read = inventory.versions.get(slotKey(slot)) ?? 0;
  return [
    {
      Put: {
        TableName: tableName(),
        Item: reservation.item([held.region, held.tenantId], {
          ...held,
          ttl: Math.floor(Date.parse(held.expiresAt) / 1000) + 86400,
        }),
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: capacitySlot.key(slot.region, slot.location, slot.plan),
        UpdateExpression: 'SET #version = :next',
        ConditionExpression:
          'attribute_exists(PK) AND (#version = :read OR (attribute_not_exists(#version) AND :read = :zero))',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':read': read, ':next': read + 1, ':zero': 0 },
      },
    },
  ];
};

/**
 * Holds one place of `plan` in the tenant's Home Region until `expiresAt` (the location with the
 * most free places). A tenant's earlier reservation is replaced.
 */
export const reserveCapacity = async (
  request: { tenantId: string; region: string; plan: PlanValue },
  now: Date,
  expiresAt: Date,
): Promise<ReserveOutcome> => {
  for (let attempt = 0; attempt < 10; attempt++) {
    const inventory = await readInventory(request.region);
    const others = withoutReservationOf(inventory, request.tenantId);
    const slot = chooseLocation(others, request.region, request.plan, now);
    if (!slot) return { reserved: undefined, availablePlans: placeablePlans(others, request.region, now) };
    const held: Reservation = {
      tenantId: request.tenantId,
      region: request.region,
      location: slot.location,
      plan: request.plan,
      expiresAt: expiresAt.toISOString(),
    };
    if (await transactIf(reservationWrites(inventory, held, slot))) return { reserved: held };
    // Someone else changed the slot since we read it: read again and decide again.
  }
  throw new Error('capacity reservation kept conflicting; try again');
};

/**
 * A place of `plan` for `holder` as read now, to be written in the caller's own transaction:
 * in `location` only when given (`only`), else the Stack's location first (`prefer`), then the
 * location with the most free places. Undefined when no place is free.
 */
export const placeHold = async (request: {
  holder: string;
  region: string;
  plan: PlanValue;
  now: Date;
  expiresAt: Date;
  only?: string;
  prefer?: string;
}): Promise<{ location: string; writes: TransactItem[] } | undefined> => {
  const inventory = await readInventory(request.region);
  const others = withoutReservationOf(inventory, request.holder);
  const fits = (location: string) =>
    others.slots.find(
      (slot) =>
        slot.region === request.region &&
        slot.location === location &&
        slot.plan === request.plan &&
        freeSlots(slot, others.reservations, request.now) > 0,
    );
  const slot =
    request.only !== undefined
      ? fits(request.only)
      : ((request.prefer !== undefined ? fits(request.prefer) : undefined) ??
        chooseLocation(others, request.region, request.plan, request.now));
  if (!slot) return undefined;
  const held: Reservation = {
    tenantId: request.holder,
    region: request.region,
    location: slot.location,
    plan: request.plan,
    expiresAt: request.expiresAt.toISOString(),
  };
  return { location: slot.location, writes: reservationWrites(inventory, held, slot) };
};

/** The write that gives a held place back (part of the caller's transaction). */
export const releaseHoldWrite = (region: string, holder: string): TransactItem => ({
  Delete: { TableName: tableName(), Key: reservation.key(region, holder) },
});

export const releaseReservation = async (region: string, tenantId: string): Promise<void> => {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: reservation.key(region, tenantId) }));
};
