import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LifecycleState, Transition } from '#core/lifecycle.ts';
import { db, tableName, transactIf } from './client.ts';
import { dueIndexKeys } from './due.ts';
import { keys } from './keys.ts';
import type { Tenant } from './tenants.ts';
import type { TransactItem } from './transact.ts';

/**
 * Stores the outcome of one reconciliation of a tenant: its new state and grace deadline, one
 * history entry per transition, when to look again (or out of the due index), and `extra` writes
 * that belong with it (the first Stack, capacity). Conditioned on the version and `dueAt` read:
 * a concurrent sweep, or an event that arrived meanwhile, makes it fail and the tenant stays due.
 */
export const commitReconciliation = async (params: {
  tenant: Tenant;
  settled: LifecycleState;
  transitions: Transition[];
  nextCheckAt: string | null;
  now: Date;
  extra?: TransactItem[];
  /**
   * Facts to store with it: a leaving tenant's (why it left, teardown time, close-out progress),
   * and when its first invoice above zero was paid (the money-back window's start).
   */
  record?: Partial<
    Record<'leftBy' | 'teardownAt' | 'billingStoppedAt' | 'tornDownAt' | 'firstPaidAt', string>
  >;
}): Promise<boolean> => {
  const { tenant, settled, transitions, nextCheckAt, now } = params;
  const recorded = Object.entries(params.record ?? {}).filter(([, value]) => value !== undefined);
  const at = now.toISOString();
  const due = nextCheckAt ? dueIndexKeys(tenant.tenantId, nextCheckAt) : undefined;
  const values: Record<string, unknown> = {
    ':state': settled.state,
    ':deadline': settled.graceDeadline,
    ':read': tenant.version,
    ':one': 1,
  };
  if (tenant.dueAt !== undefined) values[':dueRead'] = tenant.dueAt;
  if (due && nextCheckAt)
    Object.assign(values, { ':dueAt': nextCheckAt, ':pk': due.GSI2PK, ':sk': due.GSI2SK });
  const names: Record<string, string> = { '#version': 'version' };
  for (const [name, value] of recorded) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  }
  const recordSet = recorded.map(([name]) => `, #${name} = :${name}`).join('');
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.tenant(tenant.tenantId),
        UpdateExpression: `SET billingState = :state, graceDeadline = :deadline, #version = #version + :one${recordSet}${
          due ? ', dueAt = :dueAt, GSI2PK = :pk, GSI2SK = :sk' : ' REMOVE dueAt, GSI2PK, GSI2SK'
        }${due ? ' REMOVE' : ','} reconcileFailures`,
        ConditionExpression: `#version = :read AND ${tenant.dueAt === undefined ? 'attribute_not_exists(dueAt)' : 'dueAt = :dueRead'}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...transitions.map((transition, index) => ({
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.history(tenant.tenantId, at, index),
          type: 'history',
          at,
          from: transition.from,
          to: transition.to,
          reason: transition.reason,
        },
        // Two commits in the same millisecond must not overwrite each other's entries.
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    })),
    ...(params.extra ?? []),
  ];
  return transactIf(items);
};

/** Deletes of every waitlist entry of the tenant (a leaving tenant is told of no capacity any more). */
export const waitlistDeletes = async (tenantId: string): Promise<TransactItem[]> => {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :waitlist)',
      ExpressionAttributeValues: { ':pk': keys.tenant(tenantId).PK, ':waitlist': keys.waitlistPrefix },
      ProjectionExpression: 'PK, SK',
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => ({
    Delete: { TableName: tableName(), Key: { PK: String(item.PK), SK: String(item.SK) } },
  }));
};
