import type { LifecycleState, Transition } from '#core/lifecycle.ts';
import { tableName, transactIf } from './client.ts';
import { createPut, listAll } from './entity.ts';
import { history } from './history.ts';
import { type Tenant, tenant as tenants } from './tenants.ts';
import type { TransactItem } from './transact.ts';
import { waitlist } from './waitlist.ts';

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
  const due = nextCheckAt ? tenants.index.due(tenant.tenantId, nextCheckAt) : undefined;
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
        Key: tenants.key(tenant.tenantId),
        UpdateExpression: `SET billingState = :state, graceDeadline = :deadline, #version = #version + :one${recordSet}${
          due ? ', dueAt = :dueAt, GSI2PK = :pk, GSI2SK = :sk' : ' REMOVE dueAt, GSI2PK, GSI2SK'
        }${due ? ' REMOVE' : ','} reconcileFailures`,
        ConditionExpression: `#version = :read AND ${tenant.dueAt === undefined ? 'attribute_not_exists(dueAt)' : 'dueAt = :dueRead'}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    // Created once: two commits in the same millisecond must not overwrite each other's entries.
    ...transitions.map((transition, index) =>
      createPut(history, [tenant.tenantId, at, index], {
        at,
        from: transition.from,
        to: transition.to,
        reason: transition.reason,
      }),
    ),
    ...(params.extra ?? []),
  ];
  return transactIf(items);
};

/** Deletes of every waitlist entry of the tenant (a leaving tenant is told of no capacity any more). */
export const waitlistDeletes = async (tenantId: string): Promise<TransactItem[]> => {
  const entries = await listAll(waitlist, tenantId);
  return entries.map((entry) => ({
    Delete: { TableName: tableName(), Key: waitlist.key(tenantId, entry.plan) },
  }));
};
