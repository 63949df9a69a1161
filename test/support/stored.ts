import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { listInventory } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';

/**
 * Every item of one partition of the table (only those whose sort key starts with `skPrefix`,
 * when given), read consistently, in key order.
 */
export const partitionItems = async (pk: string, skPrefix?: string): Promise<Record<string, unknown>[]> =>
  (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: skPrefix === undefined ? 'PK = :pk' : 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ...(skPrefix === undefined ? {} : { ':sk': skPrefix }) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** Everything stored in the tenant's partition: what a refused request must leave as it was. */
export const tenantPartition = (tenantId: string) => partitionItems(keys.tenant(tenantId).PK);

/**
 * What a refused request must leave as it was, as one string to compare before and after: the
 * tenant's partition, and with `inventory` the capacity of its region too.
 */
export const storedSnapshot = async (
  tenant: { tenantId: string; region: string },
  what: { inventory?: boolean } = {},
): Promise<string> =>
  JSON.stringify({
    items: await tenantPartition(tenant.tenantId),
    ...(what.inventory ? { inventory: await listInventory(tenant.region) } : {}),
  });

/**
 * Writes `fields` onto the stored item at `key`, as a test's starting state (an older version's
 * item, a crashed writer's leftovers, a record edited by hand): each field is SET, a dotted name
 * (`checkout.url`) sets a nested one. Every name goes through a placeholder, so reserved words
 * (`type`, `url`, `status`) need no care.
 */
export const setStored = async (key: { PK: string; SK: string }, fields: Record<string, unknown>) => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([name, value], i) => {
    const path = name
      .split('.')
      .map((part, j) => {
        names[`#f${i}_${j}`] = part;
        return `#f${i}_${j}`;
      })
      .join('.');
    values[`:v${i}`] = value;
    return `${path} = :v${i}`;
  });
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
};
