import { randomBytes } from 'node:crypto';
import { estimateView } from '#core/estimates.ts';
import { cancellationScheduled, cancellationScheduledRefusal, leavingRefusal } from '#core/leaving.ts';
import { placeablePlans } from '#core/placement.ts';
import type { PlanValue } from '#core/plans.ts';
import { listPriceOf } from '#core/price-lock.ts';
import { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';
import { addedStackName, type ItemChange, itemsAfterAdding } from '#core/stack-growth.ts';
import { stackOnPlan } from '#core/stacks.ts';
import { config } from '#ports/config.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { withRequestProcessorBudget } from '#ports/processor/deadline.ts';
import { outcomeUnknown, ProcessorError, processorRefusal, viaProcessor } from '#ports/processor/errors.ts';
import { previewItemChange } from '#ports/processor/preview.ts';
import { retrieveSubscription, subscriptionItems } from '#ports/processor/subscriptions.ts';
import { getBilling } from '#store/billing.ts';
import { listInventory, releaseReservation, reserveCapacity } from '#store/capacity.ts';
import {
  type IdempotencyClaim,
  idempotencyDoneWrite,
  recordIdempotencyPlan,
  withIdempotencyKey,
} from '#store/idempotency.ts';
import { consumeItemChangeWrite } from '#store/item-lease.ts';
import { firstStackWrites, getStack, listStacks } from '#store/stacks.ts';
import { stackAddedWrite, type Tenant } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import {
  addOwner,
  type HeldItemLease,
  ItemChangeUnknown,
  ItemLeaseBusy,
  withItemLease,
} from '../billing/item-changes.ts';
import { stackView } from './views.ts';

/** How long an added Stack's place is held while the subscription is changed. */
const RESERVATION_MINUTES = 10;

const notActive = (state: string) =>
  state === 'provisioning'
    ? refuse('no_subscription')
    : refuse('billing_overdue', { state, next: 'add Stacks' });

const noCapacity = (plan: PlanValue, availablePlans: PlanValue[]) =>
  refuse('no_capacity', { plan }, { extra: { reason: 'no_capacity', availablePlans } });

/** What makes two adds with the same Idempotency-Key the same request. */
export const addStackFingerprint = (plan: PlanValue): string => JSON.stringify({ plan });

const NO_NEW_STACK = 'no Stack can be added';

/** What refuses any add from our own state alone: a scheduled cancellation, leaving, not paying. */
const refuseFromState = (tenant: Tenant, now: Date) => {
  if (cancellationScheduled(tenant, false, now)) throw cancellationScheduledRefusal(tenant, NO_NEW_STACK);
  const leaving = leavingRefusal(tenant);
  if (leaving) throw leaving;
  if (tenant.billingState !== 'active') throw notActive(tenant.billingState);
};

/** The checks every added Stack passes first; they only read. */
const checkMayAdd = async (tenant: Tenant, plan: PlanValue, stackCap: number, now: Date) => {
  refuseFromState(tenant, now);
  const billing = await getBilling(tenant.tenantId);
  const subscriptionId = billing?.subscriptionId;
  if (!subscriptionId) throw notActive('provisioning');
  // The processor's word, not only ours: our state may still say active.
  const subscription = await viaProcessor(() => retrieveSubscription(subscriptionId));
  if (cancellationScheduled(tenant, subscription.cancelScheduled, now))
    throw cancellationScheduledRefusal(tenant, NO_NEW_STACK);
  if (subscription.status !== 'active')
    throw refuse('subscription_not_active', { what: 'Stacks can be added' });
  const stacks = await listStacks(tenant.tenantId);
  const counted = stacks.filter((s) => s.lifecycle !== 'torn_down').length;
  if (counted >= stackCap) throw refuse('stack_cap_reached', { stackCap, counted }, { extra: { stackCap } });
  const inventory = await listInventory(tenant.homeRegion);
  const available = placeablePlans(inventory, tenant.homeRegion, now);
  if (!available.includes(plan)) throw noCapacity(plan, available);
  return { subscriptionId, ordinal: stacks.length + 1 };
};

/** How long an add waits for another change of the subscription items to finish (within its budget). */
const LEASE_WAIT_MS = 3_000;

/** Another change of the subscription items kept the lease past the wait: nothing was written. */
const subscriptionBusy = (retryAfterSeconds: number) =>
  refuse('subscription_busy', { retryAfterSeconds }, { extra: { retryAfterSeconds } });

/**
 * THE add-a-Stack use case: only while the processor reports the subscription active; up to the
 * Stack Cap; placed as at checkout (409 `no_capacity` with the Plans that fit); billed on the one
 * subscription (one item per price, `quantity` = Stacks on it), prorated to the next invoice; no
 * promotion code. The checks, the read of the items and their change are made while holding the
 * tenant's subscription-items lease, so two adds (or an add and a Plan Change's commit or a price
 * move) never compute from the same read; a lease still busy after a short wait answers 503
 * `subscription_busy` and writes nothing. With an Idempotency-Key, a retried request creates one
 * Stack and one item change; the same key with another body is 409 `idempotency_key_reused`.
 */
export const addStack = async (params: {
  tenant: Tenant;
  plan: PlanValue;
  idempotencyKey: string | undefined;
  stackCap: number;
  now: Date;
}) => {
  const { tenant, plan, now } = params;
  return withRequestProcessorBudget(async () => {
    let decided: { stackId: string; subscriptionId: string; items?: ItemChange[] } | undefined;
    // Set when this request's own item change was not applied (a refusal, or a lost answer a read
    // showed not applied): nothing of it stays, so its key may be used again.
    const outcome = { nothingStays: false };
    return withIdempotencyKey(
      {
        tenantId: tenant.tenantId,
        key: params.idempotencyKey,
        fingerprint: addStackFingerprint(plan),
        label: 'add-stack',
        now,
      },
      async (key) => {
        // Taken over from a request that stopped midway: carry on with what it decided.
        if (key?.plan.stackId) decided = key.plan as typeof decided;
        try {
          if (decided) {
            // A retry of a request that stopped midway: carry on with what it decided.
            const done = await getStack(tenant.tenantId, decided.stackId);
            if (done) return stackView(done);
          }
          // A tenant that is leaving or not paying, or that the read-only checks refuse, is refused
          // before the lease is taken (its holder first settles what earlier holders left at the
          // processor); they run again under the lease, where they are fresh.
          refuseFromState(tenant, now);
          if (!decided) await checkMayAdd(tenant, plan, params.stackCap, now);
          return await withItemLease(
            tenant.tenantId,
            decided ? addOwner(decided.stackId) : 'add-stack',
            async (lease) => {
              if (decided) {
                const done = await getStack(tenant.tenantId, decided.stackId);
                if (done) return stackView(done);
              }
              if (decided && lease.entry(addOwner(decided.stackId))?.state === 'applied') {
                // Its item change is made (its answer was lost): the Stack is billed, so it is created.
                const ordinal = (await listStacks(tenant.tenantId)).length + 1;
                return addUnderLease(lease, { tenant, plan, key, now, decided, ordinal, outcome });
              }
              // Checked under the lease: the Stacks, the cap and the ordinal are as they are now.
              const checked = await checkMayAdd(tenant, plan, params.stackCap, now);
              if (!decided) {
                decided = {
                  stackId: `stk_${randomBytes(6).toString('hex')}`,
                  subscriptionId: checked.subscriptionId,
                };
                if (key) await recordIdempotencyPlan(key, decided);
              }
              return addUnderLease(lease, {
                tenant,
                plan,
                key,
                now,
                decided,
                ordinal: checked.ordinal,
                outcome,
              });
            },
            { waitMs: LEASE_WAIT_MS },
          );
        } catch (error) {
          if (error instanceof ItemLeaseBusy) throw subscriptionBusy(error.retryAfterSeconds);
          throw error;
        }
      },
      {
        // Nothing was billed when the decision was not taken, or its change was not applied: the
        // key may be used again (a retry decides anew, with a new Stack id and so a new processor
        // key). Otherwise its decision stays (an outcome not learnt): a retry takes it over at once.
        keepOnFailure: () => decided !== undefined && !outcome.nothingStays,
      },
    );
  });
};

/** The add itself, holding the lease: the place held, the items read and changed, the Stack stored. */
const addUnderLease = async (
  lease: HeldItemLease,
  params: {
    tenant: Tenant;
    plan: PlanValue;
    key: IdempotencyClaim | undefined;
    now: Date;
    decided: { stackId: string; subscriptionId: string; items?: ItemChange[] };
    ordinal: number;
    outcome: { nothingStays: boolean };
  },
) => {
  const { tenant, plan, key, now, decided } = params;
  const owner = addOwner(decided.stackId);
  const holder = `stack:${tenant.tenantId}:${decided.stackId}`;
  const reservation = await reserveCapacity(
    { tenantId: holder, region: tenant.homeRegion, plan },
    now,
    new Date(now.getTime() + RESERVATION_MINUTES * 60_000),
  );
  if (!reservation.reserved) throw noCapacity(plan, reservation.availablePlans);
  let sent = lease.entry(owner);
  if (sent?.state !== 'applied') {
    try {
      // A request decided before the journal kept adds (and perhaps sent) goes again as it was;
      // otherwise the items are read now, under the lease.
      const legacy = !sent && decided.items?.length ? decided.items : undefined;
      const items =
        legacy ??
        itemsAfterAdding(
          await viaProcessor(() => subscriptionItems(decided.subscriptionId)),
          await viaProcessor(() => priceIdForPlan(plan, now.getTime())),
        );
      try {
        sent = await lease.send({
          owner,
          baseKey: `add-stack:${tenant.tenantId}:${decided.stackId}`,
          // Without an Idempotency-Key its owner never comes back: a charge applied whose answer
          // was lost and that nobody could read back is taken back by the next holder.
          replay: key !== undefined,
          request: {
            op: 'items',
            subscriptionId: decided.subscriptionId,
            items,
            proration: 'create_prorations',
          },
        });
      } catch (error) {
        // Neither the answer nor a read says whether the processor applied it: the entry and the
        // held place stay (the next holder decides it by reading; a retry with the key carries on).
        if (error instanceof ItemChangeUnknown) throw outcomeUnknown(key !== undefined);
        // Not applied (refused, not sent, or a read showed it not applied): nothing of it stays.
        const left = lease.entry(owner);
        if (left?.state === 'refused') await lease.consume(left);
        params.outcome.nothingStays = true;
        throw error;
      }
    } catch (error) {
      if (!(error instanceof Refusal && error.code === 'processor_outcome_unknown'))
        await releaseReservation(tenant.homeRegion, holder);
      if (error instanceof ProcessorError) throw processorRefusal(error);
      throw error;
    }
  }
  const change = sent as NonNullable<typeof sent>;
  crashPoint('add-stack.billed');
  const stack = {
    ...stackOnPlan({
      stackId: decided.stackId,
      name: addedStackName(tenant.slug ?? tenant.tenantId, params.ordinal, config.stackDomain()),
      plan,
      location: reservation.reserved.location,
      createdAt: now.toISOString(),
    }),
    // An added Stack is billed at today's price (the one item the add changed) and never locked.
    billedPriceId: change.request.items[0]?.priceId,
  };
  const view = stackView({
    ...stack,
    region: tenant.homeRegion,
    placed: true,
    desiredVersion: 1,
    projectCount: 0,
  });
  const writes = [
    ...firstStackWrites({
      tenantId: tenant.tenantId,
      region: tenant.homeRegion,
      stack,
      placed: true,
      reservationToRemove: true,
      reservationHolder: holder,
    }),
    stackAddedWrite(tenant.tenantId, params.ordinal),
    consumeItemChangeWrite(tenant.tenantId, owner, change.request.key),
    ...(key ? [idempotencyDoneWrite(key, 201, view)] : []),
  ];
  if (!(await applyStackWrites(writes))) {
    const existing = await getStack(tenant.tenantId, decided.stackId);
    if (existing) return stackView(existing);
    await releaseReservation(tenant.homeRegion, holder);
    throw refuse('add_conflict');
  }
  return view;
};

/**
 * THE add-a-Stack preview: every refusal the add would meet, else the Plan with its monthly price
 * and the processor's estimate of the next invoice with the Stack added now (the proration for
 * the rest of the period as its adjustment, after the current discount, with its tax estimate and
 * lines in our words). A processor that cannot estimate says so:
 * no figure is ever made up here. Writes nothing.
 */
export const previewAddStack = async (params: {
  tenant: Tenant;
  plan: PlanValue;
  stackCap: number;
  now: Date;
}) => {
  const { tenant, plan, now } = params;
  return withRequestProcessorBudget(async () => {
    const checked = await checkMayAdd(tenant, plan, params.stackCap, now);
    const priceId = await viaProcessor(() => priceIdForPlan(plan, now.getTime()));
    const items = itemsAfterAdding(
      await viaProcessor(() => subscriptionItems(checked.subscriptionId)),
      priceId,
    );
    try {
      const facts = await previewItemChange({
        subscriptionId: checked.subscriptionId,
        items,
        prorationDate: now,
      });
      // The added Stack's lines are all on its Plan's price (a quantity change credits the old
      // quantity and charges the new one, both on that price).
      const estimate = estimateView(facts, (linePrice) => (linePrice === priceId ? plan : null));
      return {
        plan,
        monthlyPrice: listPriceOf(plan, config.planPrices()),
        estimatedAt: now.toISOString(),
        estimate,
      };
    } catch (error) {
      if (!(error instanceof ProcessorError)) throw error;
      throw refuse('estimate_unavailable');
    }
  });
};
