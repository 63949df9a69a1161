import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { recordBillingCommitRefused } from '#ports/metrics.ts';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { readItemLease } from '#store/item-lease.ts';
import { keys } from '#store/keys.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { getStack } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { handler as commitBillingTask } from '../../functions/workflow-tasks/commit-billing.ts';
import type { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { type TestControlPlane, testGateway, uniqueRegion } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The door of the CommitBilling task: each change's commit runs only when the test lets it. */
const door = {
  arrivals: new Map<string, number>(),
  permits: new Map<string, number>(),
  runs: new Map<string, number>(),
  /** Lets `count` commits of the change through (Infinity: every later one). */
  allow(changeId: string, count = 1) {
    door.permits.set(changeId, (door.permits.get(changeId) ?? 0) + count);
  },
  async pass(input: PlanChangeExecution): Promise<PlanChangeExecution> {
    const id = input.changeId;
    door.arrivals.set(id, (door.arrivals.get(id) ?? 0) + 1);
    while ((door.permits.get(id) ?? 0) <= 0) await sleep(10);
    door.permits.set(id, (door.permits.get(id) ?? 0) - 1);
    try {
      return await commitBillingTask(input);
    } finally {
      door.runs.set(id, (door.runs.get(id) ?? 0) + 1);
    }
  },
};

let api: TestControlPlane;
let emulator: ProcessorEmulator;
beforeAll(async () => {
  api = await testGateway({
    processor: true,
    stepFunctions: { waitMs: 10, handlers: { CommitBilling: (input) => door.pass(input) } },
  });
  emulator = api.emulator as ProcessorEmulator;
});
afterAll(async () => {
  for (const id of door.arrivals.keys()) door.allow(id, Number.POSITIVE_INFINITY);
  await api.stop();
});

const DAY = 86_400;

/** A paying tenant in a Home Region of its own whose first Stack has a running reference Dispatcher. */
const payingWithDispatcher = async (plan: string) => {
  const region = uniqueRegion();
  for (const p of ['standard', 'plus', 'pro'] as const)
    await setCapacityTotal({ region, location: `${region}-a`, plan: p, total: 2 }, api.clock.now());
  const tenant = await api.subscribe({ plan, region });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential, location: `${region}-a` },
  });
  expect(started.status).toBe(201);
  return { ...tenant, region, dispatcherId: started.json.dispatcherId as string };
};
type Paying = Awaited<ReturnType<typeof payingWithDispatcher>>;

const token = async (tenant: Paying) => (await api.signIn(tenant.login)).sessionToken;
const read = async (tenant: Paying, changeId: string) =>
  (await api.call('GET', `/v1/plan-changes/${changeId}`, { token: await token(tenant) })).json;

/** Ticks the fleet until the change's commit waits at the door (`arrivals` times). */
const atCommit = async (changeId: string, arrivals = 1) => {
  for (let round = 0; round < 400; round++) {
    if ((door.arrivals.get(changeId) ?? 0) >= arrivals) return;
    await api.fleet.tick();
    await sleep(15);
  }
  throw new Error('the change never reached its billing commit');
};
const until = async (tenant: Paying, changeId: string, statuses: string[]) => {
  for (let round = 0; round < 300; round++) {
    await api.fleet.tick();
    const change = await read(tenant, changeId);
    if (statuses.includes(change.status)) return change;
    await sleep(15);
  }
  throw new Error(`the change never reached ${statuses.join('/')}`);
};

const subscriptionOf = (tenantId: string) => {
  const found = Object.values(emulator.state.subscriptions).find((s) => s.metadata.tenantId === tenantId);
  if (!found) throw new Error('no subscription');
  return found;
};
const itemsByPlan = (tenantId: string) =>
  Object.fromEntries(
    subscriptionOf(tenantId).items.map((item) => [
      /^stack_plan_(\w+)_monthly$/.exec(emulator.state.prices[item.price]?.lookupKey ?? '')?.[1],
      item.quantity,
    ]),
  );
/** Every item change (a POST with `items`) the control plane sent for the tenant's subscription. */
const itemChanges = (tenantId: string) =>
  emulator.calls.filter(
    (c) =>
      c.method === 'POST' && c.path === `/v1/subscriptions/${subscriptionOf(tenantId).id}` && c.params.items,
  );
const outboxFor = async (changeId: string) => {
  const found = [];
  for (const status of ['completed', 'rolled_back', 'expired', 'cancelled', 'superseded']) {
    const { Items } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.outbox(`plan-change:${changeId}:${status}`).PK },
      }),
    );
    found.push(...(Items ?? []));
  }
  return found;
};
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

/** No slot ever has more places in use, or in use and held, than it has. */
const placesHold = async (region: string) => {
  const inventory = await listInventory(region);
  for (const slot of inventory.slots) {
    const held = inventory.reservations.filter((r) => r.location === slot.location && r.plan === slot.plan);
    expect(slot.used).toBeLessThanOrEqual(slot.total);
    expect(slot.used + held.length).toBeLessThanOrEqual(slot.total);
  }
  return inventory;
};
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
    const tenant = await payingWithDispatcher('plus');
    const refusedBefore = commitRefusedCount();
    const confirmed = await api.call('POST', `/v1/stacks/primary/plan-changes`, {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    expect(confirmed.status).toBe(202);
    const changeId = confirmed.json.changeId as string;
    await atCommit(changeId);
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
    const tenant = await payingWithDispatcher('plus');
    const refusedBefore = commitRefusedCount();
    const confirmed = await api.call('POST', `/v1/stacks/primary/plan-changes`, {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    const changeId = confirmed.json.changeId as string;
    await atCommit(changeId);

    // The processor refuses the first commit: the Pro price is missing at that moment.
    const [proId, pro] = Object.entries(emulator.state.prices).find(
      ([, price]) => price.lookupKey === 'stack_plan_pro_monthly' && price.active,
    ) as [string, (typeof emulator.state.prices)[string]];
    delete emulator.state.prices[proId];
    try {
      door.allow(changeId);
      await atCommit(changeId, 2);
    } finally {
      emulator.state.prices[proId] = pro;
    }
    expect((await getPlanChange(tenant.tenantId, changeId))?.commitAttempts).toBe(1);
    expect(commitRefusedCount()).toBe(refusedBefore + 1);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    const refusedChanges = itemChanges(tenant.tenantId).length;

    // Before the retry, the tenant cancels in the portal; the sweep sees it.
    const portal = await api.call('POST', '/v1/billing/portal', { token: await token(tenant) });
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
    const tenant = await payingWithDispatcher('plus');
    const confirmed = await api.call('POST', `/v1/stacks/primary/plan-changes`, {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    const changeId = confirmed.json.changeId as string;
    await atCommit(changeId);
    const subscriptionId = subscriptionOf(tenant.tenantId).id;
    // The processor applies the commit but its answer is lost, and it cannot be read back then.
    emulator.faults.push({
      method: 'POST',
      keyPrefix: `plan-change:${changeId}`,
      kind: 'lose-answer',
      times: Number.POSITIVE_INFINITY,
      onHit: () => {
        if (!emulator.faults.some((f) => f.method === 'GET'))
          emulator.faults.push({
            method: 'GET',
            path: `/v1/subscriptions/${subscriptionId}`,
            kind: 'unavailable',
            times: Number.POSITIVE_INFINITY,
          });
      },
    });
    try {
      door.allow(changeId);
      await atCommit(changeId, 2);
    } finally {
      emulator.faults.length = 0;
    }
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    expect((await readItemLease(tenant.tenantId))?.entries.map((e) => e.state)).toEqual(['sending']);

    // The tenant cancels in the portal; the sweep sees it.
    const portal = await api.call('POST', '/v1/billing/portal', { token: await token(tenant) });
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
    const tenant = await payingWithDispatcher('plus');
    const confirmed = await api.call('POST', `/v1/stacks/primary/plan-changes`, {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    const changeId = confirmed.json.changeId as string;
    await atCommit(changeId);
    const subscription = subscriptionOf(tenant.tenantId);
    // The commit's first look at the subscription says it is live; right after it, the tenant
    // cancels in the portal (the sweep has not seen it: the billing state is still active).
    emulator.faults.push({
      method: 'GET',
      path: `/v1/subscriptions/${subscription.id}`,
      kind: 'none',
      onHit: () => {
        subscription.cancelAtPeriodEnd = true;
      },
    });
    try {
      door.allow(changeId, Number.POSITIVE_INFINITY);
      const done = await until(tenant, changeId, ['completed', 'rolled_back']);
      expect(done.status).toBe('completed');
      expect(done.final.adjustment).toBe(0);
    } finally {
      emulator.faults.length = 0;
    }
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
    expect((await storedChange(tenant.tenantId, changeId))?.final?.notBilled).toBe('account_closed');
    expect(emulator.calls.filter((c) => c.idempotencyKey?.startsWith(`plan-change:${changeId}`))).toEqual([]);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    await placesHold(tenant.region);
  });
});
