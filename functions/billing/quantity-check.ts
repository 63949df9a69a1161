import { isLiveSubscription } from '#core/lifecycle.ts';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import {
  actualQuantities,
  expectedQuantities,
  type HeldQuantity,
  namePrice,
  type PriceName,
  quantityDrift,
  quantityHeldBy,
  type StackBilling,
} from '#core/quantities.ts';
import { targetPriceOf } from '#core/stack-growth.ts';
import { priceIdForPlan } from '#ports/processor/catalog.ts';
import { ProcessorError } from '#ports/processor/errors.ts';
import { retrieveSubscription, subscriptionItems } from '#ports/processor/subscriptions.ts';
import { getBilling } from '#store/billing.ts';
import { type ItemChangeEntry, readItemLease } from '#store/item-lease.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { scanTenantsWithSubscription } from '#store/quantity-check.ts';
import { listStacks, type StoredStack } from '#store/stacks.ts';
import { getTenant, tenantIdOfSlug } from '#store/tenants.ts';

/**
 * THE operator's quantity check (`npm run ops -- quantities check`): read-only. For each tenant
 * with a live subscription, the quantities the table bills (functions/core/quantities.ts) are
 * compared with the subscription's items at the processor, per price. Writes nothing, takes no
 * lease, sends nothing to the processor but reads.
 *
 * A drift seen while a writer is at work (the tenant's subscription-items lease is held, or its
 * journal holds an entry younger than UNSETTLED_MINUTES, or a Plan Change's commit was decided
 * before the journal kept commits and not recorded) is `unsettled`, not `drift`: the writer
 * records its outcome within seconds, and the next run tells. A drift with only older entries in
 * the journal is a drift (docs/runbook.md).
 */

/** Journal entries younger than this may be a writer between the processor and the table. */
export const UNSETTLED_MINUTES = 60;

export type QuantityCheckStatus = 'ok' | 'drift' | 'unsettled' | 'not_checked';

export interface PriceDrift {
  /** The processor's price id: printed only when the operator asks (`--ids`). */
  priceId: string;
  name: PriceName;
  expected: number;
  actual: number;
}

export interface TenantQuantities {
  tenantId: string;
  slug: string | null;
  status: QuantityCheckStatus;
  /** Why a tenant was not checked, or why a drift is taken as unsettled (or what a drift comes with). */
  reason?: string;
  drift: PriceDrift[];
  /** Stacks that hold a quantity. */
  stacks: number;
}

/** Today's price of each Plan (read once per run). */
export type TodaysPrices = Record<PlanValue, string>;

export const todaysPrices = async (now: Date): Promise<TodaysPrices> => {
  const prices = {} as TodaysPrices;
  for (const plan of PLAN_VALUES) prices[plan] = await priceIdForPlan(plan, now.getTime());
  return prices;
};

/** What a Stack's billing is, with its open Plan Change's commit read from the change's record. */
const billingOf = async (
  tenantId: string,
  stack: StoredStack,
): Promise<{ billing: StackBilling; undecidedCommit: boolean }> => {
  const billing: StackBilling = {
    plan: stack.plan,
    lifecycle: stack.lifecycle,
    ...(stack.billedPriceId ? { billedPriceId: stack.billedPriceId } : {}),
  };
  if (!stack.openChange) return { billing, undecidedCommit: false };
  const change = await getPlanChange(tenantId, stack.openChange.id);
  const items = change?.billingItems ?? [];
  const target = targetPriceOf(items);
  if (!change || items.length === 0 || !target) return { billing, undecidedCommit: false };
  // Decided (before the journal kept commits) but not recorded as committed: it may or may not be applied.
  if (!change.final) return { billing, undecidedCommit: true };
  return {
    billing: { ...billing, committedChange: { toPlan: change.toPlan, priceId: target } },
    undecidedCommit: false,
  };
};

/** Whether a writer may be between the processor and the table: a lease held, or a recent entry. */
const writerAtWork = (
  lease: { holder?: string; leaseUntil?: string; entries: ItemChangeEntry[] } | undefined,
  now: Date,
): { atWork: boolean; olderEntries: number } => {
  if (!lease) return { atWork: false, olderEntries: 0 };
  const held = lease.holder !== undefined && Date.parse(lease.leaseUntil ?? '') > now.getTime();
  const recent = lease.entries.filter(
    (entry) => now.getTime() - Date.parse(entry.at) < UNSETTLED_MINUTES * 60_000,
  );
  return { atWork: held || recent.length > 0, olderEntries: lease.entries.length - recent.length };
};

/** Checks one tenant's quantities. A processor that cannot be read throws its ProcessorError. */
export const checkTenantQuantities = async (
  tenantId: string,
  prices: TodaysPrices,
  now: Date,
): Promise<TenantQuantities> => {
  const tenant = await getTenant(tenantId);
  const result = { tenantId, slug: tenant?.slug ?? null, drift: [], stacks: 0 };
  if (!tenant) return { ...result, status: 'not_checked', reason: 'no tenant record' };
  const subscriptionId = (await getBilling(tenantId))?.subscriptionId;
  if (!subscriptionId) return { ...result, status: 'not_checked', reason: 'no subscription' };
  if (tenant.billingState === 'provisioning')
    return {
      ...result,
      status: 'not_checked',
      reason: 'provisioning: the sweep has not created its first Stack yet',
    };
  const subscription = await retrieveSubscription(subscriptionId);
  if (!isLiveSubscription(subscription.status))
    return { ...result, status: 'not_checked', reason: 'its subscription ended: nothing is billed any more' };

  const leaseBefore = await readItemLease(tenantId);
  const stacks = await listStacks(tenantId);
  const billings = await Promise.all(stacks.map((stack) => billingOf(tenantId, stack)));
  const held: (HeldQuantity | undefined)[] = billings.map(({ billing }) =>
    quantityHeldBy(billing, (plan) => prices[plan]),
  );
  const items = await subscriptionItems(subscriptionId);
  const leaseAfter = await readItemLease(tenantId);

  const drift = quantityDrift(expectedQuantities(held), actualQuantities(items)).map((entry) => ({
    priceId: entry.price,
    name: namePrice(entry.price, prices, held),
    expected: entry.expected,
    actual: entry.actual,
  }));
  const counted = { ...result, stacks: held.filter((quantity) => quantity !== undefined).length };
  if (drift.length === 0) return { ...counted, status: 'ok' };
  const before = writerAtWork(leaseBefore, now);
  const after = writerAtWork(leaseAfter, now);
  if (before.atWork || after.atWork || billings.some((b) => b.undecidedCommit))
    return {
      ...counted,
      drift,
      status: 'unsettled',
      reason: 'a change of the subscription items is under way (lease or recent journal entry): run it again',
    };
  const older = Math.max(before.olderEntries, after.olderEntries);
  return {
    ...counted,
    drift,
    status: 'drift',
    ...(older > 0
      ? {
          reason: `its journal holds ${older} entr${older === 1 ? 'y' : 'ies'} older than ${UNSETTLED_MINUTES} min`,
        }
      : {}),
  };
};

/** A tenant the processor could not be read for: not checked, said as such. */
const unreadable = (tenantId: string, error: ProcessorError): TenantQuantities => ({
  tenantId,
  slug: null,
  status: 'not_checked',
  reason: `the processor could not be read (${error.kind})`,
  drift: [],
  stacks: 0,
});

export interface QuantityCheckRun {
  /** How the tenants were found: one by its slug, or a paginated table scan. */
  source: { kind: 'slug'; slug: string } | { kind: 'scan'; pages: number };
  checked: number;
  drifting: number;
  unsettled: number;
  notChecked: number;
  /** Tenants whose check failed (the processor could not be read). */
  failed: number;
}

/**
 * Checks one tenant (by slug) or every tenant with a subscription (a table scan, page by page),
 * telling `report` of each tenant as soon as it is checked. Throws UnknownSlug for a slug no
 * tenant has.
 */
export const checkQuantities = async (
  params: { slug?: string; now: Date },
  report: (result: TenantQuantities) => void,
): Promise<QuantityCheckRun> => {
  const prices = await todaysPrices(params.now);
  const totals = { checked: 0, drifting: 0, unsettled: 0, notChecked: 0, failed: 0 };
  const one = async (tenantId: string) => {
    let result: TenantQuantities;
    try {
      result = await checkTenantQuantities(tenantId, prices, params.now);
    } catch (error) {
      if (!(error instanceof ProcessorError)) throw error;
      result = unreadable(tenantId, error);
      totals.failed++;
    }
    if (result.status === 'not_checked') totals.notChecked++;
    else totals.checked++;
    if (result.status === 'drift') totals.drifting++;
    if (result.status === 'unsettled') totals.unsettled++;
    report(result);
  };
  if (params.slug !== undefined) {
    const tenantId = await tenantIdOfSlug(params.slug);
    if (!tenantId) throw new UnknownSlug(params.slug);
    await one(tenantId);
    return { source: { kind: 'slug', slug: params.slug }, ...totals };
  }
  let pages = 0;
  for await (const page of scanTenantsWithSubscription()) {
    pages = page.page;
    for (const tenantId of page.tenantIds) await one(tenantId);
  }
  return { source: { kind: 'scan', pages }, ...totals };
};

export class UnknownSlug extends Error {
  constructor(slug: string) {
    super(`No tenant has the slug "${slug}".`);
    this.name = 'UnknownSlug';
  }
}
