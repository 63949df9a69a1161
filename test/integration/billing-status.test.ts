import { describe, expect, it } from 'vitest';
import { statusOf as httpStatusOf } from '#http/refusal-status.ts';
import { clock, installClock } from '#ports/clock.ts';
import { getTenant } from '#store/tenants.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal, TEST_CARDS } from '../support/hosted-pages.ts';
import { adminRequest, refusalOf } from '../support/money-back.ts';
import { processorView, withFaults } from '../support/processor-view.ts';

/**
 * GET /v1/billing/status, pinned field by field (functions/billing/status.ts): the grace deadline
 * only while a grace runs, the close-out only while leaving and what it says at each step, and
 * whether the money-back refund can still be asked for, to the millisecond of its window's end.
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

const DAY_S = 86_400;
const YOU_CAN_STILL =
  'Read this status and export your data until teardown. Nothing new can be bought or changed.';

/** The close-out a leaving tenant is shown: why, until when, what has happened yet, and its words. */
const closingOf = (
  reason: string,
  teardownAt: string | undefined,
  at: { serves: boolean; billingStopped: boolean; tornDown: boolean },
) => ({
  reason,
  teardownAt,
  stacksServeUntilTeardown: at.serves,
  billingStopped: at.billingStopped,
  tornDown: at.tornDown,
  youCanStill: YOU_CAN_STILL,
});

/** The status the route answers now, for a fresh session of the tenant's administrator. */
const statusOf = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
};

/**
 * The status the route answers with the Clock port stopped at `instant` (over HTTP a running
 * clock cannot hit a millisecond); the session is made just before, on the running clock.
 */
const statusAt = async (tenant: { login: string }, instant: Date) => {
  const { sessionToken } = await api.signIn(tenant.login);
  const running = clock();
  installClock({ now: () => new Date(instant) });
  try {
    return (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
  } finally {
    installClock(running);
  }
};

/** The stored tenant item (the facts the view is made from). */
const stored = async (tenantId: string) => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw new Error(`no tenant ${tenantId}`);
  return tenant;
};

const portalOf = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('POST', '/v1/billing/portal', { token: sessionToken })).json.url as string;
};

/** `days` later, after a sweep: the status the tenant reads, and the stored tenant it is made from. */
const afterDays = async (tenant: { login: string; tenantId: string }, days: number) => {
  api.clock.advance(days * DAY_S);
  await api.sweep();
  return Promise.all([statusOf(tenant), stored(tenant.tenantId)]);
};

describe('the grace deadline: shown while a grace runs, null otherwise', () => {
  it('active: null; past-due and suspended: the stored deadline; decommissioning after the grace: null, closing with billing stopped and the Stacks not yet torn down', async () => {
    const tenant = await api.subscribe({ plan: 'standard', card: TEST_CARDS.failsLater });
    const active = await statusOf(tenant);
    expect(active.billingState).toBe('active');
    expect(active.graceDeadline).toBeNull();
    expect(active).not.toHaveProperty('closing');

    const [pastDue, pastDueStored] = await afterDays(tenant, 31);
    expect(pastDueStored.billingState).toBe('past-due');
    expect(pastDueStored.graceDeadline).toEqual(expect.any(String));
    expect(pastDue).toMatchObject({ billingState: 'past-due', graceDeadline: pastDueStored.graceDeadline });
    expect(pastDue).not.toHaveProperty('closing');

    const [suspended, suspendedStored] = await afterDays(tenant, 7);
    expect(suspendedStored.billingState).toBe('suspended');
    expect(suspendedStored.graceDeadline).not.toBe(pastDueStored.graceDeadline);
    expect(suspended).toMatchObject({
      billingState: 'suspended',
      graceDeadline: suspendedStored.graceDeadline,
    });
    expect(suspended).not.toHaveProperty('closing');

    const [leaving, leavingStored] = await afterDays(tenant, 14);
    expect(leavingStored).toMatchObject({ billingState: 'decommissioning', graceDeadline: null });
    expect(leavingStored.billingStoppedAt).toEqual(expect.any(String));
    expect(leavingStored.tornDownAt).toBeUndefined();
    expect(leaving.billingState).toBe('decommissioning');
    expect(leaving.graceDeadline).toBeNull();
    // Another reason than a portal cancel: the Stacks do not serve until teardown.
    expect(leaving.closing).toEqual(
      closingOf('suspended_grace_elapsed', leavingStored.teardownAt, {
        serves: false,
        billingStopped: true,
        tornDown: false,
      }),
    );
  });
});

describe('the close-out of a portal cancel', () => {
  it('the Stacks serve until the paid period ends, billing not yet stopped; no refund while leaving; after the paid period: billing stopped and torn down', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const paidThrough = new Date(subscriptionOf(tenant.tenantId).currentPeriodEnd * 1000).toISOString();
    await cancelInPortal(await portalOf(tenant));
    await api.sweep();

    const leaving = await statusOf(tenant);
    const leavingStored = await stored(tenant.tenantId);
    expect(leavingStored.teardownAt).toBe(paidThrough);
    expect(leaving.billingState).toBe('decommissioning');
    expect(leaving.graceDeadline).toBeNull();
    expect(leaving.closing).toEqual(
      closingOf('cancelled_in_portal', paidThrough, { serves: true, billingStopped: false, tornDown: false }),
    );
    // Inside the window, nothing asked for: only leaving makes the refund unavailable.
    expect(leavingStored.moneyBack).toBeUndefined();
    expect(Date.parse(leaving.moneyBack.windowEndsAt)).toBeGreaterThan(api.clock.now().getTime());
    expect(leaving.moneyBack).toMatchObject({ available: false, used: null });

    api.clock.advance(32 * DAY_S);
    await api.sweep();
    const closed = await stored(tenant.tenantId);
    expect(closed.billingStoppedAt).toEqual(expect.any(String));
    expect(closed.tornDownAt).toEqual(expect.any(String));
    expect((await statusOf(tenant)).closing).toEqual(
      closingOf('cancelled_in_portal', paidThrough, { serves: true, billingStopped: true, tornDown: true }),
    );
  });
});

describe('whether the money-back refund can be asked for', () => {
  it('no paid invoice yet: no window, not available, no grace, no close-out', async () => {
    const tenant = await api.readyTenant();
    const status = await statusOf(tenant);
    expect(status.billingState).toBe('provisioning');
    expect(status.graceDeadline).toBeNull();
    expect(status).not.toHaveProperty('closing');
    expect(status.moneyBack).toMatchObject({ windowEndsAt: null, available: false, used: null });
  });

  it('available at the window’s last millisecond, not one after; once asked for, not available; once granted, what was refunded in which currency', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const { firstPaidAt } = await stored(tenant.tenantId);
    const windowEndsAt = new Date(Date.parse(firstPaidAt ?? '') + 14 * DAY_S * 1000);
    expect((await statusOf(tenant)).moneyBack).toMatchObject({
      windowEndsAt: windowEndsAt.toISOString(),
      available: true,
      used: null,
    });

    // Sessions last a week: sign in close to the window's end.
    api.clock.advance(Math.floor((windowEndsAt.getTime() - api.clock.now().getTime()) / 1000) - 60);
    expect((await statusAt(tenant, windowEndsAt)).moneyBack.available).toBe(true);
    expect((await statusAt(tenant, new Date(windowEndsAt.getTime() + 1))).moneyBack.available).toBe(false);

    // Asked for inside the window, the refund not made (the processor did not answer): the claim
    // alone makes it unavailable, and nothing is shown as used yet.
    const requestedAt = api.clock.now();
    const crashed = await withFaults(
      emulator,
      [{ method: 'POST', path: '/v1/refunds', kind: 'unavailable', times: 10 }],
      () => refusalOf(adminRequest(tenant, requestedAt)),
    );
    expect(httpStatusOf(crashed)).toBe(502);
    expect((await stored(tenant.tenantId)).moneyBack).toMatchObject({
      requestedAt: requestedAt.toISOString(),
    });
    const asked = await statusAt(tenant, requestedAt);
    expect(asked.billingState).toBe('active');
    expect(asked.moneyBack).toMatchObject({ available: false, used: null });

    const grant = await grantMoneyBack(adminRequest(tenant, requestedAt, api.clock.now()));
    const granted = (await statusAt(tenant, requestedAt)).moneyBack;
    expect(granted.available).toBe(false);
    expect(granted.used).toEqual({
      requestedAt: requestedAt.toISOString(),
      grantedAt: grant.grantedAt,
      refundedAmount: grant.refundedAmount,
      refunds: 1,
      currency: 'usd',
    });
    expect((await stored(tenant.tenantId)).moneyBack?.currency).toBe('usd');
  });
});
