import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName, updateIf } from './client.ts';
import { DUE_SHARDS, tenant } from './tenants.ts';

export interface DueTenant {
  tenantId: string;
  dueAt: string;
  /** Consecutive failed reconciliations (0 when the last one succeeded, or none failed). */
  reconcileFailures: number;
}

/**
 * Tenants due at or before `now`, at most `limit`, shared fairly between the shards: each shard
 * gets an equal share, and what a shard leaves unused goes to the shards that have more, so a
 * shard full of due (say, failing) tenants cannot crowd out the others. Answered round-robin by
 * shard (earliest first within each), so the sweep visits the shards in turn. Reports the items
 * it read.
 */
export const listDueTenants = async (
  now: Date,
  limit: number,
): Promise<{ due: DueTenant[]; itemsRead: number }> => {
  const perShard: DueTenant[][] = Array.from({ length: DUE_SHARDS }, () => []);
  const next: (Record<string, unknown> | undefined)[] = Array.from({ length: DUE_SHARDS }, () => undefined);
  let open = Array.from({ length: DUE_SHARDS }, (_, shard) => shard);
  let itemsRead = 0;
  let taken = 0;
  while (open.length > 0 && taken < limit) {
    const share = Math.max(1, Math.floor((limit - taken) / open.length));
    const pages = await Promise.all(
      open.map((shard) =>
        db().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: 'GSI2',
            KeyConditionExpression: 'GSI2PK = :shard AND GSI2SK <= :now',
            ExpressionAttributeValues: {
              ':shard': tenant.index.dueShard(shard).GSI2PK,
              ':now': `${now.toISOString()}#\uffff`,
            },
            ProjectionExpression: 'tenantId, dueAt, reconcileFailures',
            Limit: Math.min(share, limit - taken),
            ...(next[shard] ? { ExclusiveStartKey: next[shard] } : {}),
          }),
        ),
      ),
    );
    const stillOpen: number[] = [];
    pages.forEach((page, index) => {
      const shard = open[index] ?? 0;
      itemsRead += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) {
        if (taken >= limit) break;
        perShard[shard]?.push({
          tenantId: String(item.tenantId),
          dueAt: String(item.dueAt),
          reconcileFailures: Number(item.reconcileFailures ?? 0),
        });
        taken++;
      }
      next[shard] = page.LastEvaluatedKey;
      if (page.LastEvaluatedKey) stillOpen.push(shard);
    });
    open = stillOpen;
  }
  const due: DueTenant[] = [];
  for (let round = 0; due.length < taken; round++)
    for (const shard of perShard) {
      const entry = shard[round];
      if (entry) due.push(entry);
    }
  return { due, itemsRead };
};

/**
 * Records a failed reconciliation: one more failure, and the tenant due again at `retryAt` (the
 * backoff rule's answer) instead of at once. Conditioned on the `dueAt` read: if an event made the
 * tenant due meanwhile (or a reconciliation went through), nothing is written and it stays as is.
 */
export const recordReconcileFailure = async (
  entry: { tenantId: string; dueAt: string },
  failures: number,
  retryAt: Date,
  now: Date,
): Promise<boolean> => {
  const dueAt = retryAt.toISOString();
  const due = tenant.index.due(entry.tenantId, dueAt);
  return updateIf({
    Key: tenant.key(entry.tenantId),
    UpdateExpression:
      'SET reconcileFailures = :failures, lastReconcileFailureAt = :now, dueAt = :dueAt, GSI2PK = :pk, GSI2SK = :sk',
    ConditionExpression: 'dueAt = :dueRead',
    ExpressionAttributeValues: {
      ':failures': failures,
      ':now': now.toISOString(),
      ':dueAt': dueAt,
      ':pk': due.GSI2PK,
      ':sk': due.GSI2SK,
      ':dueRead': entry.dueAt,
    },
  });
};
