import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES } from '#core/plans.ts';
import { renderDesiredState, type StackRecord } from '#core/stacks.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

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
  lifecycle: v.picklist(['running', 'decommissioning']),
  createdAt: v.string(),
});

/** The stored Stack with its rendered desired state beside it (what the Dispatcher reads). */
export const stackItem = (tenantId: string, stack: StackRecord) => ({
  ...keys.stack(tenantId, stack.stackId),
  type: 'stack',
  tenantId,
  ...stack,
  desiredState: renderDesiredState(stack),
});

export const listStacks = async (tenantId: string): Promise<StackRecord[]> => {
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
