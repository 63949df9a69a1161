import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { CapacitySlot } from '#core/placement.ts';
import { PLAN_VALUES } from '#core/plans.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

const CapacitySlotSchema = v.object({
  region: v.string(),
  location: v.string(),
  plan: v.picklist(PLAN_VALUES),
  total: v.pipe(v.number(), v.integer(), v.minValue(0)),
  used: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** Every inventory row of one Home Region: one query on one partition. */
export const listCapacity = async (region: string): Promise<CapacitySlot[]> => {
  const slots: CapacitySlot[] = [];
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
    for (const item of page.Items ?? []) slots.push(v.parse(CapacitySlotSchema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return slots;
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
        'SET #type = :type, #region = :region, #location = :location, #plan = :plan, #total = :total, #used = if_not_exists(#used, :zero), #updatedAt = :now',
      ExpressionAttributeNames: {
        '#type': 'type',
        '#region': 'region',
        '#location': 'location',
        '#plan': 'plan',
        '#total': 'total',
        '#used': 'used',
        '#updatedAt': 'updatedAt',
      },
      ExpressionAttributeValues: {
        ':type': 'capacity',
        ':region': slot.region,
        ':location': slot.location,
        ':plan': slot.plan,
        ':total': slot.total,
        ':zero': 0,
        ':now': now.toISOString(),
      },
    }),
  );
};
