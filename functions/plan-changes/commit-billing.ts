import { isLiveSubscription } from '#core/lifecycle.ts';
import { type PlanChangeExecution, prorationMoment } from '#core/plan-change.ts';
import { DISPATCHER_LOOK_MAX_SECONDS } from '#core/plan-change-pacing.ts';
import { listPriceOf } from '#core/price-lock.ts';
import { itemsAfterPlanChange } from '#core/stack-growth.ts';
import { config } from '#ports/config.ts';
import { logger } from '#ports/logger.ts';
import { recordBillingCommitRefused } from '#ports/metrics.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { ProcessorError } from '#ports/processor/errors.ts';
import { committedAdjustment } from '#ports/processor/items.ts';
import { retrieveSubscription, subscriptionItemsInPeriod } from '#ports/processor/subscriptions.ts';
import { getBilling } from '#store/billing.ts';
import { consumeItemChangeWrite, type ItemChangeEntry } from '#store/item-lease.ts';
import { type PlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import { getStack } from '#store/stacks.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';
import { applyStackWrites, type TransactItem } from '#store/transact.ts';
import {
  type HeldItemLease,
  ItemLeaseBusy,
  settledBilledPrice,
  withItemLease,
} from '../billing/item-changes.ts';
import { executionOf, readRun } from './record.ts';

/** A refused commit is tried again after this long, doubling up to an hour. */
const RETRY_SECONDS = 60;
const RETRY_MAX_SECONDS = 3_600;
/**
 * Another writer holds the subscription items: the commit looks again this soon, doubling on each
 * busy look in a row up to BUSY_RETRY_MAX_SECONDS; a request nobody can decide yet (the processor
 * cannot be read) waits at least the lease's time.
 */
const BUSY_RETRY_SECONDS = 5;
const BUSY_RETRY_MAX_SECONDS = 300;

/**
 * Why a change completed without billing (stored on its final adjustment): the tenant left (its
 * billing state is `decommissioning`, or its subscription ended or is ending) before the commit.
 */
export const NOT_BILLED_ACCOUNT_CLOSED = 'account_closed' as const;

/** The journal owner of a change's billing commit (functions/store/item-lease.ts). */
const ownerOf = (changeId: string) => `plan-change:${changeId}`;

/**
 * Has the tenant left, or is it leaving? Its billing state first (no processor call), then what the
 * processor says of the subscription: ended, or set to end (a portal cancel the sweep has not seen yet).
 */
const tenantLeaving = async (tenant: Tenant, subscriptionId: string): Promise<boolean> => {
  if (tenant.billingState === 'decommissioning') return true;
  const subscription = await retrieveSubscription(subscriptionId);
  return !isLiveSubscription(subscription.status) || subscription.cancelScheduled;
};

/**
 * What an applied commit records on the change: the items it sent, its exact adjustment with the
 * tax the next invoice puts on it and their sum, the moment it prorated from and the billing
 * period it was made in (the explanation the tenant reads).
 */
const committedFields = (entry: ItemChangeEntry, now: Date) => {
  const { request } = entry;
  const result = entry.result as NonNullable<typeof entry.result>;
  const proratedFrom = request.op === 'commit' ? { proratedFrom: request.prorationDate } : {};
  // What the next invoice changes by: the adjustment and the tax the processor puts on it.
  const total =
    result.adjustmentTax === undefined ? {} : { adjustmentTotal: result.adjustment + result.adjustmentTax };
  return {
    step: 'complete' as const,
    billingItems: request.items,
    final: { ...result, ...total, committedAt: now.toISOString(), ...proratedFrom },
  };
};

/**
 * THE billing commit: once the replacement is healthy, the subscription's items change (the item
 * of the price the Stack is billed at loses one, the new Plan's price of the day gains one,
 * quantities kept), prorated from the moment the replacement was healthy (or from the start of the
 * current billing period when the subscription renewed after that moment: the processor prorates
 * only within the current period, and the renewal billed the old Plan for the whole new period),
 * the billing-cycle date unchanged, with a key from the change id. The items are read and the
 * change sent while holding the tenant's subscription-items lease, so an added Stack or a price
 * move at the same moment cannot be lost (docs/decisions.md). The exact adjustment is read from
 * the proration items the processor created. A commit the processor refuses is retried (paced;
 * decided again from a fresh read under a new key), counted for the operators' alarm, and never
 * rolls the healthy move back.
 *
 * A tenant that left (or is leaving) before the commit is never billed for it: the change
 * completes with no processor write, its final adjustment 0 and the reason stored with it.
 */
export const commitBilling = async (input: PlanChangeExecution, now: Date): Promise<PlanChangeExecution> => {
  const run = await readRun(input);
  if (!run) return { ...input, step: 'done', waitSeconds: 0 };
  const { change, tenant } = run;
  if (change.status !== 'verifying' || change.step !== 'commit_billing') return executionOf(change);
  const healthyAt = new Date(change.healthyAt ?? now.toISOString());
  const owner = ownerOf(change.changeId);
  try {
    const billing = await getBilling(change.tenantId);
    const subscriptionId = billing?.subscriptionId;
    if (!subscriptionId) throw new ProcessorError('rejected', 'the tenant has no subscription to change');
    if (await tenantLeaving(tenant, subscriptionId)) return await completeUnbilled(input, change, now);
    const outcome = await withItemLease(
      change.tenantId,
      owner,
      async (lease): Promise<{ committed: ItemChangeEntry } | { unbilled: PlanChangeExecution }> => {
        const decided = lease.entry(owner);
        if (decided?.state === 'applied') return { committed: decided };
        // Checked again under the lease, just before sending: a cancel (in the portal, say) made
        // since the check above is seen here, and nothing is sent for a tenant that is leaving.
        const facts = await subscriptionItemsInPeriod(subscriptionId);
        const fresh = await getTenant(change.tenantId);
        if (facts.leaving || fresh?.billingState === 'decommissioning')
          return { unbilled: await completeUnbilledUnder(lease, input, change, now) };
        // Decided before the journal kept commits (and perhaps sent): sent again exactly as it was.
        const legacy = !decided && change.billingItems?.length ? change.billingItems : undefined;
        let items = legacy;
        let prorationDate = healthyAt.toISOString();
        if (!items) {
          // Read now, under the lease: the Stack leaves the price it is billed at (after a price
          // rise, a locked Stack's item is on the old price, beside today's) for the new Plan's
          // price of the day, prorated from the healthy moment or, when the subscription renewed
          // since, from the start of the new period (the processor refuses a moment before it).
          const stack = (await getStack(change.tenantId, change.stackId)) ?? run.stack;
          const billed = await settledBilledPrice(lease, change.tenantId, stack, subscriptionId);
          const [oldPrice, newPrice, current] = await Promise.all([
            billed ?? priceIdForPlan(change.fromPlan, healthyAt.getTime()),
            priceIdForPlan(change.toPlan, healthyAt.getTime()),
            subscriptionItemsInPeriod(subscriptionId),
          ]);
          items = itemsAfterPlanChange(current.items, oldPrice, newPrice);
          prorationDate = prorationMoment(prorationDate, current.period);
        }
        const committed = await lease.send({
          owner,
          baseKey: owner,
          replay: true,
          request: { op: 'commit', subscriptionId, items, prorationDate },
        });
        if (!committed) throw new Error('a billing commit was not sent');
        return { committed };
      },
      { deadline: true },
    );
    if ('unbilled' in outcome) return outcome.unbilled;
    const { committed } = outcome;
    if (!committed.result) throw new Error('a billing commit answered no adjustment');
    const moved = await applyStackWrites([
      planChangeUpdate(change, committedFields(committed, now), now),
      consumeItemChangeWrite(change.tenantId, owner, committed.request.key),
    ]);
    return moved ? { ...input, step: 'complete', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
  } catch (error) {
    if (error instanceof ItemLeaseBusy) {
      const waitSeconds = Math.min(
        BUSY_RETRY_MAX_SECONDS,
        Math.max(
          BUSY_RETRY_SECONDS,
          (input.waitSeconds ?? 0) * 2,
          error.undecided ? error.retryAfterSeconds : 0,
        ),
      );
      logger.info('plan change billing commit waits: the subscription items are being changed', {
        changeId: change.changeId,
        waitSeconds,
      });
      return { ...input, waitSeconds };
    }
    if (!(error instanceof ProcessorError)) throw error;
    const attempts = (change.commitAttempts ?? 0) + 1;
    recordBillingCommitRefused();
    logger.error('plan change billing commit refused', {
      changeId: change.changeId,
      attempts,
      error: error.message,
    });
    await applyStackWrites([planChangeUpdate(change, { commitAttempts: attempts }, now)]);
    return {
      ...input,
      waitSeconds: Math.min(
        RETRY_MAX_SECONDS,
        Math.max(DISPATCHER_LOOK_MAX_SECONDS, RETRY_SECONDS * 2 ** (attempts - 1)),
      ),
    };
  }
};

/**
 * The change of a tenant that left before its commit: nothing more is sent. Under the lease, so
 * that a request of the change whose answer was lost is decided (by reading the items) before
 * anything is recorded: one the processor applied is recorded as billed, with its real adjustment
 * read back (its prorations are on the next invoice, which a cancel at period end still collects),
 * never as "not billed"; otherwise the final adjustment is 0, marked as not billed. The completion
 * then runs as for any change (the held place becomes the Stack's, its old one is given back,
 * admission is no longer paused, the teardown can go on).
 */
const completeUnbilled = (
  input: PlanChangeExecution,
  change: PlanChange,
  now: Date,
): Promise<PlanChangeExecution> =>
  withItemLease(
    change.tenantId,
    ownerOf(change.changeId),
    (lease) => completeUnbilledUnder(lease, input, change, now),
    { deadline: true },
  );

const completeUnbilledUnder = async (
  lease: HeldItemLease,
  input: PlanChangeExecution,
  change: PlanChange,
  now: Date,
): Promise<PlanChangeExecution> => {
  const owner = ownerOf(change.changeId);
  // Settled on taking the lease: applied, refused, or none.
  const entry = lease.entry(owner);
  const writes: TransactItem[] = [];
  if (entry?.state === 'applied' && entry.request.op === 'commit') {
    const result =
      entry.result ??
      (await committedAdjustment(entry.request.subscriptionId, new Date(entry.request.prorationDate)));
    writes.push(planChangeUpdate(change, committedFields({ ...entry, result }, now), now));
    logger.warn('plan change billed although the tenant is leaving: its commit was applied before', {
      changeId: change.changeId,
    });
  } else {
    const currency = (
      change.estimate?.currency ?? listPriceOf(change.toPlan, config.planPrices()).currency
    ).toLowerCase();
    // Kept with the final adjustment: the record shows why nothing was billed.
    const final = {
      adjustment: 0,
      adjustmentTax: 0,
      adjustmentTotal: 0,
      currency,
      committedAt: now.toISOString(),
      notBilled: NOT_BILLED_ACCOUNT_CLOSED,
    };
    writes.push(
      planChangeUpdate(
        change,
        // Items decided earlier were never committed: the Stack stays at the price it is billed at.
        { step: 'complete', final, ...(change.billingItems?.length ? { billingItems: [] } : {}) },
        now,
      ),
    );
    logger.info('plan change completed without billing: the tenant left before the commit', {
      changeId: change.changeId,
    });
  }
  if (entry) writes.push(consumeItemChangeWrite(change.tenantId, owner, entry.request.key));
  const moved = await applyStackWrites(writes);
  return moved ? { ...input, step: 'complete', waitSeconds: 0 } : { ...input, waitSeconds: 1 };
};
