import { DeleteCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import {
  type CapacitySlot,
  chooseLocation,
  type Inventory,
  placeablePlans,
  type Reservation,
  withoutReservationOf,
} from '#core/placement.ts';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';

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
        ExpressionAttributeValues: { ':pk': keys.capacityRegion(region).PK },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.type === 'capacity') {
        const { version, type: _type, ...slot } = v.parse(SlotSchema, item);
        inventory.slots.push(slot);
        inventory.versions.set(slotKey(slot), version);
      } else if (item.type === 'reservation') {
        const { type: _type, ...reservation } = v.parse(ReservationSchema, item);
        inventory.reservations.push(reservation);
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
      Key: keys.capacity(slot.region, slot.location, slot.plan),
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
        ':type': 'capacity',
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

export type ReserveOutcome = { reserved: Reservation } | { reserved: undefined; availablePlans: PlanValue[] };

/**
 * Holds one place of `plan` in the tenant's Home Region until `expiresAt`. The reservation and a
 * bump of the chosen slot's version are one transaction conditioned on the version read, so two
 * tenants racing for the last place cannot both get it. A tenant's earlier reservation is replaced.
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
    const reservation: Reservation = {
      tenantId: request.tenantId,
      region: request.region,
      location: slot.location,
      plan: request.plan,
      expiresAt: expiresAt.toISOString(),
    };
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName(),
                Item: {
                  ...keys.reservation(request.region, request.tenantId),
                  type: 'reservation',
                  ...reservation,
                  ttl: Math.floor(expiresAt.getTime() / 1000) + 86400,
                },
              },
            },
            {
              Update: {
                TableName: tableName(),
                Key: keys.capacity(slot.region, slot.location, slot.plan),
                UpdateExpression: 'SET #version = :next',
                ConditionExpression:
                  'attribute_exists(PK) AND (#version = :read OR (attribute_not_exists(#version) AND :read = :zero))',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: {
                  ':read': inventory.versions.get(slotKey(slot)) ?? 0,
                  ':next': (inventory.versions.get(slotKey(slot)) ?? 0) + 1,
                  ':zero': 0,
                },
              },
            },
          ],
        }),
      );
      return { reserved: reservation };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Someone else changed the slot since we read it: read again and decide again.
    }
  }
  throw new Error('capacity reservation kept conflicting; try again');
};

export const releaseReservation = async (region: string, tenantId: string): Promise<void> => {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.reservation(region, tenantId) }));
};
