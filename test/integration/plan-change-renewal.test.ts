import { describe, expect, it, vi } from 'vitest';
import { recordBillingCommitRefused } from '#ports/metrics.ts';
import { ProcessorError } from '#ports/processor/errors.ts';
import { previewItemChange } from '#ports/processor/preview.ts';
import { readItemLease } from '#store/item-lease.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { gatewayWithCommitDoor } from '../support/plan-change-world.ts';
import { processorView, withPriceMissing } from '../support/processor-view.ts';

/**
 * The subscription renews after a Plan Change's healthy moment and before its billing commit
 * succeeds (the commit was held, or refused for a while). The processor prorates only from a moment
 * within the current period, so a commit prorated from the healthy moment would be refused on every
 * retry; the commit prorates from the start of the new period instead. The renewal invoice billed
 * the old Plan for the whole new period, so the adjustment is the whole new period's difference, and
 * the change's explanation says why. The real workflow (local Step Functions with the real task
 * handlers), the reference Dispatcher and the processor emulator, whose clock renews the
 * subscription as a Stripe test clock does; the commit task is held at its door meanwhile.
 */

// The operators' alarm metric, counted here (it emits nothing outside Lambda).
vi.mock('#ports/metrics.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/metrics.ts')>();
  return { ...actual, recordBillingCommitRefused: vi.fn(actual.recordBillingCommitRefused) };
});
const commitRefusedCount = () => vi.mocked(recordBillingCommitRefused).mock.calls.length;

const { api, emulator, door, payingWithDispatcher, until, atCommit, changeAtTheDoor } =
  gatewayWithCommitDoor();
const { subscriptionOf, invoicesOf, itemsByPlan, priceOf, itemChanges } = processorView(emulator);
const renewalInvoices = (tenantId: string) => invoicesOf(tenantId, 'subscription_cycle');
type Paying = Awaited<ReturnType<typeof payingWithDispatcher>>;

/** The commits the control plane sent for the change (item changes under its key), in order. */
const commitsOf = (tenantId: string, changeId: string) =>
  itemChanges(tenantId).filter((c) => c.idempotencyKey?.startsWith(`plan-change:${changeId}`));
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** Moves the clock past the subscription's period end: the emulator renews it there, billing the items it has. */
const renew = async (tenant: Paying) => {
  const { currentPeriodEnd } = subscriptionOf(tenant.tenantId);
  api.clock.advance(currentPeriodEnd - seconds(api.clock.now().toISOString()) + 3_600);
  await api.sweep();
  expect(subscriptionOf(tenant.tenantId).currentPeriodStart).toBe(currentPeriodEnd);
  return currentPeriodEnd;
};

describe('a subscription that renews between the healthy moment and the billing commit', () => {
  it('the held commit prorates from the new period’s start: the whole new period moves to the new Plan, and the change says why', async () => {
    const { tenant, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const refusedBefore = commitRefusedCount();
    const healthyAt = (await getPlanChange(tenant.tenantId, changeId))?.healthyAt as string;
    expect(seconds(healthyAt)).toBeLessThan(subscriptionOf(tenant.tenantId).currentPeriodEnd);

    const newPeriodStart = await renew(tenant);
    // The renewal billed the old Plan (Plus) for the whole new period.
    const [renewal] = renewalInvoices(tenant.tenantId);
    expect(renewal?.lines.map((l) => [l.price, l.amount, l.periodStart])).toEqual([
      [priceOf('plus').id, priceOf('plus').unitAmount, newPeriodStart],
    ]);
    // The processor now refuses to prorate from the healthy moment (before the current period).
    const refused = await previewItemChange({
      subscriptionId: subscriptionOf(tenant.tenantId).id,
      items: [{ priceId: priceOf('pro').id, quantity: 1 }],
      prorationDate: new Date(healthyAt),
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProcessorError);
    expect((refused as ProcessorError).message).toMatch(
      /proration_date\] must be within the current subscription period/,
    );

    door.allow(changeId, Number.POSITIVE_INFINITY);
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    // One commit, first time, under the change's own key, prorated from the new period's start.
    const commits = commitsOf(tenant.tenantId, changeId);
    expect(commits.map((c) => [c.idempotencyKey, c.params.proration_date])).toEqual([
      [`plan-change:${changeId}`, String(newPeriodStart)],
    ]);
    expect(commitRefusedCount()).toBe(refusedBefore);
    expect((await getPlanChange(tenant.tenantId, changeId))?.commitAttempts).toBe(0);
    // The whole new period: credit Plus, charge Pro.
    const difference = priceOf('pro').unitAmount - priceOf('plus').unitAmount;
    expect(done.final.adjustment).toBe(difference);
    expect(done.final.explanation).toMatch(
      new RegExp(
        `^Billed from the start of the new billing period \\(${iso(newPeriodStart).replace(/\./g, '\\.')}\\): the replacement was healthy at ${healthyAt.replace(/\./g, '\\.')}, before the subscription renewed`,
      ),
    );
    expect((await getPlanChange(tenant.tenantId, changeId))?.final).toMatchObject({
      adjustment: difference,
      proratedFrom: iso(newPeriodStart),
      period: { start: iso(newPeriodStart), end: iso(subscriptionOf(tenant.tenantId).currentPeriodEnd) },
    });
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    expect((await readItemLease(tenant.tenantId))?.entries ?? []).toEqual([]);

    // The next renewal bills Pro, and the adjustment with it: the period after the first renewal
    // costs exactly Pro (Plus billed in advance, less Plus, plus Pro).
    await renew(tenant);
    const next = renewalInvoices(tenant.tenantId)[1];
    const prorations = next?.lines.filter((l) => l.proration) ?? [];
    expect(prorations.map((l) => l.periodStart)).toEqual([newPeriodStart, newPeriodStart]);
    expect(prorations.reduce((sum, l) => sum + l.amount, 0)).toBe(difference);
    expect(next?.lines.filter((l) => !l.proration).map((l) => [l.price, l.amount])).toEqual([
      [priceOf('pro').id, priceOf('pro').unitAmount],
    ]);
    expect((renewal?.subtotal ?? 0) + difference).toBe(priceOf('pro').unitAmount);
  });

  it('a commit refused before the renewal is decided again after it, from the new period’s start, instead of being refused every hour', async () => {
    const { tenant, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const refusedBefore = commitRefusedCount();
    const healthyAt = (await getPlanChange(tenant.tenantId, changeId))?.healthyAt as string;

    // The processor refuses the first commit: the Pro price is missing at that moment.
    const pro = priceOf('pro');
    await withPriceMissing(emulator, 'pro', async () => {
      door.allow(changeId);
      await atCommit(changeId, 2);
    });
    expect((await getPlanChange(tenant.tenantId, changeId))?.commitAttempts).toBe(1);
    expect(commitRefusedCount()).toBe(refusedBefore + 1);

    const newPeriodStart = await renew(tenant);
    door.allow(changeId, Number.POSITIVE_INFINITY);
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    // The refused request was prorated from the healthy moment; the retry, decided again from a
    // fresh read under a new key, from the start of the new period: applied the first time.
    expect(
      commitsOf(tenant.tenantId, changeId).map((c) => [c.idempotencyKey, c.params.proration_date]),
    ).toEqual([
      [`plan-change:${changeId}`, String(seconds(healthyAt))],
      [`plan-change:${changeId}:retry-1`, String(newPeriodStart)],
    ]);
    expect((await getPlanChange(tenant.tenantId, changeId))?.commitAttempts).toBe(1);
    expect(commitRefusedCount()).toBe(refusedBefore + 1);
    expect(done.final.adjustment).toBe(pro.unitAmount - priceOf('plus').unitAmount);
    expect(done.final.explanation).toMatch(/^Billed from the start of the new billing period/);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    expect((await readItemLease(tenant.tenantId))?.entries ?? []).toEqual([]);
  });
});
