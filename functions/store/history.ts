import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

const HistorySchema = v.object({
  at: v.string(),
  from: v.picklist(BILLING_STATES),
  to: v.picklist(BILLING_STATES),
  reason: v.string(),
});
export type HistoryEntry = v.InferOutput<typeof HistorySchema>;

/** The tenant-visible history of lifecycle transitions, oldest first (written by the sweep only). */
export const listHistory = async (tenantId: string): Promise<HistoryEntry[]> => {
  const entries: HistoryEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :history)',
        ExpressionAttributeValues: { ':pk': keys.tenant(tenantId).PK, ':history': 'HISTORY#' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) entries.push(v.parse(HistorySchema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return entries;
};
