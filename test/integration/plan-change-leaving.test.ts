import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { recordBillingCommitRefused } from '#ports/metrics.ts';
import { listInventory } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { readItemLease } from '#store/item-lease.ts';
import { keys } from '#store/keys.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { getStack } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { gatewayWithCommitDoor, outboxFor, placesHold } from '../support/plan-change-world.ts';
import { lostAnswers, processorView, withFaults, withPriceMissing } from '../support/processor-view.ts';

/**
 * A tenant that leaves while its Plan Change is past Verifying and its billing commit has not
 * happened: the change completes without billing (no processor write, final adjustment 0 with the
 * reason), the held place becomes the Stack's, its old place is given back, admission is no longer
 * paused and the teardown goes on. The real workflow (local Step Functions with the real task
 * handlers), the reference Dispatcher, the processor emulator, the real refund and portal paths and
 * the sweep; the commit task is held at its door so the tenant can leave before it runs.
 */

// The operators' alarm metric, counted here (it emits nothing outside Lambda).
vi.mock('#ports/metrics.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('#ports/metrics.ts')>();
  return { ...actual, recordBillingCommitRefused: vi.fn(actual.recordBillingCommitRefused) };
});
const commitRefusedCount = () => vi.mocked(recordBillingCommitRefused).mock.calls.length;

const { api, emulator, door, asTenant, until, atCommit, changeAtTheDoor } = gatewayWithCommitDoor();
const { subscriptionOf, itemsByPlan, itemChanges } = processorView(emulator);

const DAY = 86_400;

/** The change's record as stored (the final adjustment with what the API does not parse). */
const storedChange = async (tenantId: string, changeId: string) =>
  (
    await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.planChange(tenantId, changeId),
        ConsistentRead: true,
      }),
    )
  ).Item;

const used = async (region: string, plan: string) =>
  (await listInventory(region)).slots.find((s) => s.location === `${region}-a` && s.plan === plan)?.used;

/** What the Stack's Dispatcher is told now. */
const desiredOf = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.stack(tenantId, 'primary'), ConsistentRead: true }),
    )
  ).Item?.desiredState;

describe('a tenant that leaves between Verifying and the billing commit', () => {
  it('money-back refund: the change completes unbilled, one email, no item change, admission unpaused, then the teardown frees every place', async () => {
    const { tenant, confirmed, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const refusedBefore = commitRefusedCount();
    expect(await getPlanChange(tenant.tenantId, changeId)).toMatchObject({
      status: 'verifying',
      step: 'commit_billing',
    });
    await placesHold(tenant.region);

    // The tenant leaves: the money-back refund ends the subscription at once; the sweep sees it.
    const now = api.clock.now();
    await grantMoneyBack({
      slug: tenant.slug,
      email: `${tenant.login.toLowerCase()}@users.code-host.test`,
      requestedAt: now,
      now,
    });
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
    // Past the teardown time the Stack is still there: the open change ends first.
    api.clock.advance(8 * DAY);
    await api.sweep();
    await api.fleet.tick();
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('decommissioning');

    door.allow(changeId, Number.POSITIVE_INFINITY);
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.final).toMatchObject({
      adjustment: 0,
      estimatedAdjustment: confirmed.json.estimate.adjustment,
    });
    expect(done.final.explanation).toMatch(
      /^Not billed: the account was closed before the change was committed/,
    );
    expect((await storedChange(tenant.tenantId, changeId))?.final).toMatchObject({
      adjustment: 0,
      notBilled: 'account_closed',
    });
    // Nothing reached the processor for it: no item change at all, the items as they were.
    expect(itemChanges(tenant.tenantId)).toEqual([]);
    expect(emulator.calls.filter((c) => c.idempotencyKey?.startsWith(`plan-change:${changeId}`))).toEqual([]);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    expect(commitRefusedCount()).toBe(refusedBefore);
    // One email, as for any completed change: it says nothing was billed and names no amount.
    const emails = await outboxFor(changeId);
    expect(emails).toHaveLength(1);
    expect(emails[0]?.text).toContain('Nothing was billed for this change');
    expect(emails[0]?.text).not.toMatch(/US\$/);

    // The Stack runs on the new Plan, nothing pauses admission any more, and its teardown (due
    // already) went on as soon as the change ended: the Dispatcher's confirmation is taken now.
    const stack = await getStack(tenant.tenantId, 'primary');
    expect(stack?.plan).toBe('pro');
    expect(stack?.openChange).toBeUndefined();
    const desired = await desiredOf(tenant.tenantId);
    expect(desired).not.toHaveProperty('operation');
    expect(desired?.admission).toBe('closed');
    await api.fleet.tick();
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('torn_down');
    // Every place given back: the held one became the Stack's, then went with the teardown.
    expect((await placesHold(tenant.region)).reservations).toEqual([]);
    expect(await used(tenant.region, 'pro')).toBe(0);
    expect(await used(tenant.region, 'plus')).toBe(0);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.tornDownAt).toBeDefined();
    expect(itemChanges(tenant.tenantId)).toEqual([]);
  });

  it('after a refused first commit the tenant cancels in the portal: the retry writes nothing, the change completes unbilled, the refusal counted once', async () => {
    const { tenant, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const refusedBefore = commitRefusedCount();

    // The processor refuses the first commit: the Pro price is missing at that moment.
    await withPriceMissing(emulator, 'pro', async () => {
      door.allow(changeId);
      await atCommit(changeId, 2);
    });
    expect((await getPlanChange(tenant.tenantId, changeId))?.commitAttempts).toBe(1);
    expect(commitRefusedCount()).toBe(refusedBefore + 1);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    const refusedChanges = itemChanges(tenant.tenantId).length;

    // Before the retry, the tenant cancels in the portal; the sweep sees it.
    const portal = await asTenant(tenant, 'POST', '/v1/billing/portal');
    expect((await cancelInPortal(portal.json.url)).status).toBeLessThan(400);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    expect(subscriptionOf(tenant.tenantId)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    door.allow(changeId, Number.POSITIVE_INFINITY);
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.final.adjustment).toBe(0);
    expect(done.final.explanation).toMatch(/^Not billed/);
    expect((await storedChange(tenant.tenantId, changeId))?.final?.notBilled).toBe('account_closed');
    // The retry sent nothing, and the refused request left nothing in the journal.
    expect(itemChanges(tenant.tenantId)).toHaveLength(refusedChanges);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    expect(commitRefusedCount()).toBe(refusedBefore + 1);
    expect((await readItemLease(tenant.tenantId))?.entries ?? []).toEqual([]);
    expect((await outboxFor(changeId)).map((e) => e.subject)).toHaveLength(1);

    // A portal cancel serves until the paid period ends: admission open (not paused) until then.
    const desired = await desiredOf(tenant.tenantId);
    expect(desired).not.toHaveProperty('operation');
    expect(desired?.admission).toBe('open');
    expect((await placesHold(tenant.region)).reservations).toEqual([]);
    expect(await used(tenant.region, 'pro')).toBe(1);
    expect(await used(tenant.region, 'plus')).toBe(0);

    // At the end of the paid period: no renewal, the Stack torn down, its place given back.
    const periodEnd = subscriptionOf(tenant.tenantId).currentPeriodEnd;
    api.clock.advance(periodEnd - Math.floor(api.clock.now().getTime() / 1000) + 60);
    await api.sweep();
    await api.fleet.tick();
    await api.fleet.tick();
    await api.sweep();
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('torn_down');
    expect(await used(tenant.region, 'pro')).toBe(0);
    expect((await getTenant(tenant.tenantId))?.tornDownAt).toBeDefined();
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
    expect(itemChanges(tenant.tenantId)).toHaveLength(refusedChanges);
    await placesHold(tenant.region);
  });

  it('a commit whose answer was lost (applied), then the tenant cancels in the portal (finding 2): decided by reading under the lease, recorded as billed with its real adjustment, never "not billed"', async () => {
    const { tenant, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    // The processor applies the commit but its answer is lost, and it cannot be read back then.
    await withFaults(
      emulator,
      [lostAnswers(emulator, `plan-change:${changeId}`, { unreadable: subscriptionId })],
      async () => {
        door.allow(changeId);
        await atCommit(changeId, 2);
      },
    );
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    expect((await readItemLease(tenant.tenantId))?.entries.map((e) => e.state)).toEqual(['sending']);

    // The tenant cancels in the portal; the sweep sees it.
    const portal = await asTenant(tenant, 'POST', '/v1/billing/portal');
    expect((await cancelInPortal(portal.json.url)).status).toBeLessThan(400);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');

    door.allow(changeId, Number.POSITIVE_INFINITY);
    const done = await until(tenant, changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.final.adjustment).toBeGreaterThan(0);
    expect(done.final.explanation).not.toMatch(/^Not billed/);
    expect((await storedChange(tenant.tenantId, changeId))?.final?.notBilled).toBeUndefined();
    // Exactly the one commit, under our key; the Stack is billed at Pro as the processor has it.
    expect(new Set(itemChanges(tenant.tenantId).map((c) => c.idempotencyKey))).toEqual(
      new Set([`plan-change:${changeId}`]),
    );
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    const proPrice = subscriptionOf(tenant.tenantId).items[0]?.price;
    expect((await getStack(tenant.tenantId, 'primary'))?.billedPriceId).toBe(proPrice);
    expect((await readItemLease(tenant.tenantId))?.entries ?? []).toEqual([]);
    await placesHold(tenant.region);
  });

  it('a portal cancel between the leaving check and the lease (finding 5): checked again under the lease, nothing is sent, the change completes unbilled', async () => {
    const { tenant, changeId } = await changeAtTheDoor('plus', 'pro', { places: 2 });
    const subscription = subscriptionOf(tenant.tenantId);
    // The commit's first look at the subscription says it is live; right after it, the tenant
    // cancels in the portal (the sweep has not seen it: the billing state is still active).
    const cancelsAfterTheLook = {
      method: 'GET',
      path: `/v1/subscriptions/${subscription.id}`,
      kind: 'none',
      onHit: () => {
        subscription.cancelAtPeriodEnd = true;
      },
    } as const;
    await withFaults(emulator, [cancelsAfterTheLook], async () => {
      door.allow(changeId, Number.POSITIVE_INFINITY);
      const done = await until(tenant, changeId, ['completed', 'rolled_back']);
      expect(done.status).toBe('completed');
      expect(done.final.adjustment).toBe(0);
    });
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
    expect((await storedChange(tenant.tenantId, changeId))?.final?.notBilled).toBe('account_closed');
    expect(emulator.calls.filter((c) => c.idempotencyKey?.startsWith(`plan-change:${changeId}`))).toEqual([]);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    await placesHold(tenant.region);
  });
});
