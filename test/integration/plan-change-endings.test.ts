import { describe, expect, it, vi } from 'vitest';
import type { PlanChangeExecution } from '#core/plan-change.ts';
import { decommissioned } from '#core/stacks.ts';
import { listInventory } from '#store/capacity.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { getStack, stackUpdateWrite } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { handler as drainWorkTask } from '../../functions/workflow-tasks/drain-work.ts';
import { handler as findCapacityTask } from '../../functions/workflow-tasks/find-capacity.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal, TEST_CARDS } from '../support/hosted-pages.ts';
import { adminRequest } from '../support/money-back.ts';
import { outboxFor, planChangeWorld } from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';
import { sleep } from '../support/wait.ts';

/**
 * No silent endings (issue 35, item 4): a confirmed Plan Change that ends for a reason other than
 * an administrator's cancel (the tenant goes past-due, leaves by a portal cancel, a money-back
 * refund or the end of its grace, or the Stack is torn down) ends rolled back with a reason of
 * ours and sends its one rolled-back email through the outbox; nothing ends `cancelled`. The real
 * workflow (the local Step Functions runner with the real task handlers), DynamoDB Local, the
 * reference Dispatcher, the processor emulator, the real portal and refund paths and the sweep.
 * The waiting task's looks are held at a door, so that the trigger is complete before it looks.
 */

const DAY = 86_400;
// Each test pays a tenant, runs a Dispatcher and the sweep: more than the layer's 30 s on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

/** Holds the workflow's FindCapacity and DrainWork looks of a change until the test lets them run. */
const waitingDoor = () => {
  const shut = new Set<string>();
  let opened = false;
  const pass =
    (task: (input: PlanChangeExecution) => Promise<PlanChangeExecution>) =>
    async (input: PlanChangeExecution) => {
      while (!opened && shut.has(input.changeId)) await sleep(5);
      return task(input);
    };
  return {
    shut: (changeId: string) => shut.add(changeId),
    open: (changeId: string) => shut.delete(changeId),
    openAll: () => {
      opened = true;
    },
    handlers: { FindCapacity: pass(findCapacityTask), DrainWork: pass(drainWorkTask) },
  };
};

const door = waitingDoor();
const { api, emulator } = gatewayForFile(
  { processor: true, stepFunctions: { waitMs: 10, handlers: door.handlers } },
  { beforeStop: door.openAll },
);
const { payingWithDispatcher, confirm, asTenant, read, until } = planChangeWorld(api);
const { updatesOf, itemsByPlan } = processorView(emulator);
type Paying = Awaited<ReturnType<typeof payingWithDispatcher>>;

/**
 * A paying tenant whose change to Pro waits: for capacity (no Pro place) or for work (an active
 * run keeps it draining; its place is held and admission paused). Its looks are held at the door.
 */
const waitingChange = async (
  waiting: 'waiting_for_capacity' | 'waiting_for_work',
  options: { card?: string; daysIn?: number } = {},
) => {
  const tenant = await payingWithDispatcher('plus', {
    ...(waiting === 'waiting_for_capacity' ? { capacity: { pro: 0 } } : {}),
    ...(options.card ? { card: options.card } : {}),
  });
  if (options.daysIn) api.clock.advance(options.daysIn * DAY);
  if (waiting === 'waiting_for_work')
    await api.call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/runs`, { body: { start: 1 } });
  await api.fleet.tick();
  const confirmed = await confirm(tenant, 'pro');
  expect([confirmed.status, confirmed.json.error?.code]).toEqual([202, undefined]);
  expect(confirmed.json.status).toBe(waiting);
  const changeId = confirmed.json.changeId as string;
  door.shut(changeId);
  return { tenant, changeId };
};

/**
 * Lets the change's looks run and waits for its end: rolled back for `reason`, never cancelled,
 * billing untouched, nothing held, admission no longer paused for it, exactly one email: the
 * rolled-back one, with our reason's words. Then the ending task runs again (a retry after a
 * kill): nothing more is written or sent.
 */
const expectRolledBack = async (tenant: Paying, changeId: string, reason: string, words: string) => {
  door.open(changeId);
  const ended = await until(tenant, changeId, ['rolled_back', 'expired', 'cancelled', 'completed']);
  expect(ended.status).toBe('rolled_back');
  expect(ended.reasonCode).toBe(reason);
  expect(ended.outcome).toContain(words);
  expect(ended.history.map((h: { status: string }) => h.status)).not.toContain('cancelled');
  expect(ended.final).toBeNull();
  const stored = await getPlanChange(tenant.tenantId, changeId);
  expect(stored).toMatchObject({ status: 'rolled_back', step: 'done', reasonCode: reason });
  const emails = await outboxFor(changeId);
  expect(emails).toHaveLength(1);
  expect(emails[0]?.subject).toBe(`The Plan Change of ${tenant.stackName} was rolled back`);
  expect(emails[0]?.text).toContain(words);
  expect(emails[0]?.text).not.toContain('cancelled by an administrator');
  // Billing untouched, nothing held for the change, the Stack's pointer to it gone.
  expect(updatesOf(tenant.tenantId)).toEqual([]);
  expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
  expect(
    (await listInventory(tenant.region)).reservations.filter((r) => r.tenantId === `change:${changeId}`),
  ).toEqual([]);
  const stack = await getStack(tenant.tenantId, tenant.stackId);
  expect(stack?.openChange).toBeUndefined();
  expect(stack?.operation).toBeUndefined();
  // The ending step again, from the input it ran with (a retry after a kill): nothing new.
  const again = { changeId, tenantId: tenant.tenantId, expiresAt: ended.expiresAt, waitSeconds: 0 };
  expect((await findCapacityTask({ ...again, step: 'find_capacity' })).step).toBe('done');
  expect((await drainWorkTask({ ...again, step: 'drain_work' })).step).toBe('done');
  expect(await outboxFor(changeId)).toHaveLength(1);
  expect((await getPlanChange(tenant.tenantId, changeId))?.version).toBe(stored?.version);
  return ended;
};

describe('a waiting change whose tenant goes past-due', () => {
  for (const waiting of ['waiting_for_capacity', 'waiting_for_work'] as const)
    it(`${waiting}: rolled back (billing_overdue), one rolled-back email, never cancelled`, async () => {
      const { tenant, changeId } = await waitingChange(waiting, { card: TEST_CARDS.failsLater, daysIn: 20 });
      // The renewal (in 8 to 11 days, as months go) fails: the sweep moves the tenant to past-due.
      api.clock.advance(12 * DAY);
      await api.sweep();
      expect((await getTenant(tenant.tenantId))?.billingState).toBe('past-due');
      await expectRolledBack(
        tenant,
        changeId,
        'billing_overdue',
        'A payment failed and billing became overdue',
      );
      if (waiting === 'waiting_for_work') {
        await api.fleet.tick();
        expect(api.fleet.status(tenant.dispatcherId)).toMatchObject({ admission: 'open' });
      }
    });
});

describe('a waiting change whose tenant leaves', () => {
  it('a portal cancel: rolled back (account_closing), one rolled-back email', async () => {
    const { tenant, changeId } = await waitingChange('waiting_for_capacity');
    const portal = await asTenant(tenant, 'POST', '/v1/billing/portal');
    expect((await cancelInPortal(portal.json.url)).status).toBeLessThan(400);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    await expectRolledBack(tenant, changeId, 'account_closing', 'The account is closing');
  });

  it('a money-back refund: rolled back (account_closing), one rolled-back email, the held place given back', async () => {
    const { tenant, changeId } = await waitingChange('waiting_for_work');
    expect((await read(tenant, changeId)).location.to).toBe(`${tenant.region}-a`);
    const now = api.clock.now();
    await grantMoneyBack(adminRequest(tenant, now));
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    await expectRolledBack(tenant, changeId, 'account_closing', 'The account is closing');
  });

  it('the grace ends (past-due, suspended, then closed) before the change looks again: rolled back (account_closing), one email', async () => {
    const { tenant, changeId } = await waitingChange('waiting_for_capacity', {
      card: TEST_CARDS.failsLater,
      daysIn: 20,
    });
    // The renewal fails (past-due), 7 days later suspended, 14 more and the tenant is closed.
    for (const days of [12, 8, 15]) {
      api.clock.advance(days * DAY);
      await api.sweep();
    }
    expect(await getTenant(tenant.tenantId)).toMatchObject({
      billingState: 'decommissioning',
      leftBy: 'suspended_grace_elapsed',
    });
    await expectRolledBack(tenant, changeId, 'account_closing', 'The account is closing');
  });
});

describe('a waiting change whose Stack is torn down', () => {
  it('rolled back (stack_teardown), one rolled-back email, the tenant still active', async () => {
    const { tenant, changeId } = await waitingChange('waiting_for_capacity');
    // The Stack goes away while the tenant stays active (the store's own teardown write).
    const stack = await getStack(tenant.tenantId, tenant.stackId);
    if (!stack) throw new Error('no Stack');
    expect(
      await applyStackWrites([
        stackUpdateWrite(
          tenant.tenantId,
          stack,
          decommissioned(stack, { teardownAt: api.clock.now().toISOString(), admissionOpen: false }),
        ),
      ]),
    ).toBe(true);
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
    await expectRolledBack(tenant, changeId, 'stack_teardown', 'The Stack is being torn down');
  });
});

describe('only an administrator’s cancel ends a change cancelled', () => {
  it('the cancel: cancelled, cancelled_by_administrator, no email', async () => {
    const { tenant, changeId } = await waitingChange('waiting_for_capacity');
    const cancelled = await asTenant(tenant, 'POST', `/v1/plan-changes/${changeId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', reasonCode: 'cancelled_by_administrator' });
    door.open(changeId);
    expect(await outboxFor(changeId)).toEqual([]);
  });
});
