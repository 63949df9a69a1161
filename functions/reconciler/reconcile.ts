import { classifySubscription, nextCheckAt, settle, type Transition } from '#core/lifecycle.ts';
import { chooseLocation } from '#core/placement.ts';
import { isPlanValue, type PlanValue } from '#core/plans.ts';
import { stackName } from '#core/slug.ts';
import { renderDesiredState, stackOnPlan } from '#core/stacks.ts';
import { config } from '#ports/config.ts';
import { retrieveSubscription } from '#ports/processor.ts';
import { getBilling } from '#store/billing.ts';
import { listInventory } from '#store/capacity.ts';
import { tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { commitReconciliation, type TransactItem } from '#store/lifecycle.ts';
import { listStacks, stackItem } from '#store/stacks.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';

/** The id of a tenant's first Stack: fixed, so that the Stack can be created only once. */
export const FIRST_STACK_ID = 'primary';

type Subscription = Awaited<ReturnType<typeof retrieveSubscription>>;

/** The Plan the tenant bought: our metadata, or the lookup key of the subscription's price. */
const planOf = (subscription: Subscription | undefined): PlanValue => {
  const fromMetadata = subscription?.metadata?.plan;
  if (isPlanValue(fromMetadata)) return fromMetadata;
  const lookupKey = subscription?.items.data[0]?.price.lookup_key ?? '';
  const fromPrice = /^stack_plan_(\w+)_monthly$/.exec(lookupKey)?.[1];
  return isPlanValue(fromPrice) ? fromPrice : 'standard';
};

/** The first Stack on the bought Plan, placed where the checkout reserved, and the place taken. */
const firstStackWrites = async (tenant: Tenant, plan: PlanValue, now: Date): Promise<TransactItem[]> => {
  const inventory = await listInventory(tenant.homeRegion);
  const reservation = inventory.reservations.find((r) => r.tenantId === tenant.tenantId);
  const location =
    reservation?.location ??
    chooseLocation(inventory, tenant.homeRegion, plan, now)?.location ??
    inventory.slots.find((s) => s.plan === plan)?.location;
  const stack = stackOnPlan({
    stackId: FIRST_STACK_ID,
    name: stackName(tenant.slug ?? tenant.tenantId, config.stackDomain()),
    plan,
    location: location ?? `${tenant.homeRegion}-unplaced`,
    createdAt: now.toISOString(),
  });
  const writes: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: stackItem(tenant.tenantId, stack),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  if (location && inventory.slots.some((s) => s.location === location && s.plan === plan)) {
    writes.push({
      Update: {
        TableName: tableName(),
        Key: keys.capacity(tenant.homeRegion, location, plan),
        UpdateExpression: 'ADD used :one, #version :one',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    });
  }
  if (reservation)
    writes.push({
      Delete: { TableName: tableName(), Key: keys.reservation(tenant.homeRegion, tenant.tenantId) },
    });
  return writes;
};

/** Cancelling starts account closure: the Stacks' desired state moves to decommissioning; nothing is torn down here. */
const decommissionWrites = async (tenant: Tenant): Promise<TransactItem[]> =>
  (await listStacks(tenant.tenantId))
    .filter((stack) => stack.lifecycle !== 'decommissioning')
    .map((stack) => {
      const closing = { ...stack, lifecycle: 'decommissioning' as const };
      return {
        Update: {
          TableName: tableName(),
          Key: keys.stack(tenant.tenantId, stack.stackId),
          UpdateExpression: 'SET lifecycle = :lifecycle, desiredState = :desired',
          ExpressionAttributeValues: {
            ':lifecycle': 'decommissioning',
            ':desired': renderDesiredState(closing),
          },
        },
      };
    });

export type ReconcileOutcome = { tenantId: string; transitions: Transition[]; committed: boolean };

/** Looks at one due tenant: the processor's truth now, the rules, one conditional commit. */
export const reconcileTenant = async (tenantId: string, now: Date): Promise<ReconcileOutcome> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) return { tenantId, transitions: [], committed: false };
  const current = { state: tenant.billingState, graceDeadline: tenant.graceDeadline };
  if (tenant.billingState === 'decommissioning') {
    // Terminal in v1: later events are recorded (intake) and change nothing.
    const committed = await commitReconciliation({
      tenant,
      settled: current,
      transitions: [],
      nextCheckAt: null,
      now,
    });
    return { tenantId, transitions: [], committed };
  }
  const billing = await getBilling(tenantId);
  const subscription = billing?.subscriptionId
    ? await retrieveSubscription(billing.subscriptionId)
    : undefined;
  const truth = classifySubscription(
    subscription
      ? { status: subscription.status, cancelAtPeriodEnd: subscription.cancel_at_period_end }
      : undefined,
  );
  const { state, transitions } = settle(current, truth, now);
  const extra: TransactItem[] = [];
  if (transitions.some((t) => t.from === 'provisioning' && t.to === 'active')) {
    extra.push(...(await firstStackWrites(tenant, planOf(subscription), now)));
  }
  if (transitions.some((t) => t.to === 'decommissioning')) extra.push(...(await decommissionWrites(tenant)));
  const committed = await commitReconciliation({
    tenant,
    settled: state,
    transitions,
    nextCheckAt: nextCheckAt(state),
    now,
    extra,
  });
  return { tenantId, transitions: committed ? transitions : [], committed };
};
