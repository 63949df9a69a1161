import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';

/**
 * The sparse "due" index (GSI2): a tenant is in it only while the sweep owes it a look (an event
 * arrived, or a grace ends). Sharded so that no partition gets hot; an idle sweep reads nothing.
 */
export const DUE_SHARDS = 4;

const shardOf = (tenantId: string): number =>
  (createHash('sha256').update(tenantId).digest()[0] ?? 0) % DUE_SHARDS;

export const dueIndexKeys = (tenantId: string, dueAt: string) => ({
  GSI2PK: `DUE#${shardOf(tenantId)}`,
  GSI2SK: `${dueAt}#${tenantId}`,
});

export interface DueTenant {
  tenantId: string;
  dueAt: string;
}

/** Tenants due at or before `now`, earliest first within each shard. Reports the items it read. */
export const listDueTenants = async (
  now: Date,
  limit: number,
): Promise<{ due: DueTenant[]; itemsRead: number }> => {
  const due: DueTenant[] = [];
  let itemsRead = 0;
  for (let shard = 0; shard < DUE_SHARDS && due.length < limit; shard++) {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :shard AND GSI2SK <= :now',
        ExpressionAttributeValues: { ':shard': `DUE#${shard}`, ':now': `${now.toISOString()}#\uffff` },
        ProjectionExpression: 'tenantId, dueAt',
        Limit: limit - due.length,
      }),
    );
    itemsRead += page.ScannedCount ?? 0;
    for (const item of page.Items ?? [])
      due.push({ tenantId: String(item.tenantId), dueAt: String(item.dueAt) });
  }
  return { due, itemsRead };
};
