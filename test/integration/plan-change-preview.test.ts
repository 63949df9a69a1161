import { describe, expect, it } from 'vitest';
import { getTenant } from '#store/tenants.ts';
import { refuse } from '../../functions/core/refusals/index.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { regionWithPlaces, type TestControlPlane } from '../support/gateway.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The Plan Change preview and the release gates, against DynamoDB Local and the processor emulator:
 * what it shows, the refusals a confirmation would meet (the processor's view of the subscription
 * included), its warnings, where the new Plan fits, and an estimate the processor cannot give.
 */

const { api, emulator } = gatewayForFile({ processor: true });

const preview = (token: string, plan: string) =>
  api.call('POST', '/v1/stacks/primary/plan-changes/preview', { token, body: { plan } });
const refusalCodes = async (token: string, plan: string): Promise<string[]> => {
  const answer = await preview(token, plan);
  expect(answer.status).toBe(200);
  return answer.json.refusals.map((refusal: { code: string }) => refusal.code);
};

describe('POST /v1/stacks/{stackId}/plan-changes/preview', () => {
  it('shows both Plans, where the new one fits, the processor’s estimate and the billing date; writes nothing', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    api.clock.advance(10 * 86_400);
    const { sessionToken } = await api.signIn(tenant.login);
    const before = JSON.stringify(api.emulator?.state.subscriptions);
    const up = await preview(sessionToken, 'pro');
    expect(up.status).toBe(200);
    expect(JSON.stringify(api.emulator?.state.subscriptions)).toBe(before);
    expect(up.json).toMatchObject({
      current: { plan: 'plus', monthlyPrice: { amount: 5000 }, quotas: { runCap: 3, watchedProjectsCap: 6 } },
      requested: { plan: 'pro', monthlyPrice: { amount: 6000 }, capacity: 'placeable_in_location' },
      refusals: [],
      estimateUnavailable: null,
    });
    // An upgrade two thirds into the period: about 2/3 of (60 - 50) dollars, charged on the next invoice.
    expect(up.json.estimate.adjustment).toBeGreaterThan(550);
    expect(up.json.estimate.adjustment).toBeLessThan(750);
    const subscription = Object.values(api.emulator?.state.subscriptions ?? {}).find(
      (s) => s.metadata.tenantId === tenant.tenantId,
    );
    // The next invoice is made when the current period ends: the billing-cycle date, kept.
    expect(Date.parse(up.json.billingCycleDate)).toBe((subscription?.currentPeriodEnd ?? 0) * 1000);
    // No processor id (cus_, sub_, price_, in_, si_ followed by its random part).
    expect(
      JSON.stringify(up.json).match(/\b(cus|sub|price|in|si|pi)_[A-Za-z0-9]{14,}/)?.[0] ?? null,
    ).toBeNull();

    const down = await preview(sessionToken, 'standard');
    expect(down.json.estimate.adjustment).toBeLessThan(0);
    const same = await preview(sessionToken, 'plus');
    expect(same.json.refusals).toEqual([
      { code: 'plan_unchanged', message: refuse('plan_unchanged').message },
    ]);
  });

  it('lists the refusals that apply: billing overdue', async () => {
    const tenant = await api.subscribe({ plan: 'plus', card: '4000 0000 0000 0341' });
    api.clock.advance(32 * 86_400);
    await api.sweep();
    const { sessionToken } = await api.signIn(tenant.login);
    const answer = await preview(sessionToken, 'pro');
    expect(answer.json.refusals).toContainEqual({
      code: 'billing_overdue',
      message: expect.stringMatching(
        /^Billing is (past-due|suspended): pay the open invoice or update the payment method in the billing portal, then change the Plan\.$/,
      ),
      apiHint: 'POST /v1/billing/portal',
    });
  });

  it('lists what the processor says before the sweep has seen it: a scheduled cancellation, then an ended subscription', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const { id } = processorView(emulator).subscriptionOf(tenant.tenantId);
    emulator.route('POST', `/v1/subscriptions/${id}`, { cancel_at_period_end: 'true' });
    expect(await refusalCodes(tenant.sessionToken, 'pro')).toEqual(['cancellation_scheduled']);
    emulator.route('POST', `/v1/subscriptions/${id}`, { cancel_at_period_end: 'false' });
    emulator.route('DELETE', `/v1/subscriptions/${id}`, {});
    expect(await refusalCodes(tenant.sessionToken, 'pro')).toEqual(['subscription_not_active']);
    // Read from the processor only: the tenant's state is the sweep's to write.
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('active');
  });

  it('with a release gate down, /v1/me hides the controls and the endpoint refuses, starting nothing', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const me = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
    expect(me.json.planChangeControls.visible).toBe(true);
    const saved = process.env.PLAN_CHANGE_GATES_READY;
    process.env.PLAN_CHANGE_GATES_READY =
      'plan-catalog,processor-integration,replacement-path,reconciliation-loop';
    try {
      const hidden = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
      expect(hidden.json.planChangeControls).toMatchObject({
        visible: false,
        gates: { 'customer-contract': false },
      });
      const refused = await preview(tenant.sessionToken, 'pro');
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        error: { code: 'plan_changes_unavailable' },
        gatesNotReady: ['customer-contract'],
      });
    } finally {
      process.env.PLAN_CHANGE_GATES_READY = saved;
    }
  });
});

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;
const previewOf = (tenant: Tenant, plan: string) => preview(tenant.sessionToken, plan);
const addProjects = async (tenant: Tenant, from: number, to: number) => {
  for (let n = from; n <= to; n++) {
    const added = await api.call('POST', '/v1/stacks/primary/projects', {
      token: tenant.sessionToken,
      body: { name: `p${n}`, repository: `acme/repo-${n}` },
    });
    expect(added.status).toBe(201);
  }
};

describe('the Watched-Projects warning', () => {
  it('only when the Stack watches more Projects than the new Plan allows', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await addProjects(tenant, 1, 3);
    // Three Projects, and Standard allows three: no warning about Projects.
    const atCap = await previewOf(tenant, 'standard');
    expect(atCap.json.warnings.filter((w: string) => w.includes('Projects'))).toEqual([]);
    await addProjects(tenant, 4, 4);
    const over = await previewOf(tenant, 'standard');
    expect(over.json.warnings).toContain(
      "The Stack watches 4 Projects, more than the standard Plan's 3: they stay watched, and no new Project can be registered until fewer remain.",
    );
  });
});

describe('the Founding Price Lock warning', () => {
  it('on a change to another Plan, never when the Plan would not change', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const other = await previewOf(tenant, 'pro');
    expect(other.json.priceLock).toMatchObject({ state: 'locked' });
    expect(other.json.warnings).toHaveLength(1);
    expect(other.json.warnings[0]).toMatch(/^This Stack keeps the Founding Price Lock at US\$50\.00 a month/);
    const same = await previewOf(tenant, 'plus');
    expect(same.json.warnings).toEqual([]);
    // Nothing to estimate either: the Plan is unchanged.
    expect(same.json).toMatchObject({ estimate: null, estimateUnavailable: null, billingCycleDate: null });
  });
});

describe('where the new Plan fits', () => {
  it("elsewhere in the Home Region when the Stack's location has no place of it, and would queue when none has room", async () => {
    // A Standard place is still free in the Stack's location: a place of another Plan does not count.
    const region = await regionWithPlaces(api.clock, { a: { standard: 2, pro: 0 }, b: { pro: 1 } });
    const tenant = await api.subscribe({ plan: 'standard', region });
    expect((await previewOf(tenant, 'pro')).json.requested.capacity).toBe(
      'placeable_elsewhere_in_home_region',
    );
    expect((await previewOf(tenant, 'plus')).json.requested.capacity).toBe('would_queue');
  });
});

describe('an estimate the processor cannot give', () => {
  it('is said, and no figure is made up', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    emulator.faults.push({
      method: 'POST',
      path: '/v1/invoices/create_preview',
      kind: 'unavailable',
      times: 20,
    });
    try {
      const answer = await previewOf(tenant, 'pro');
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        estimate: null,
        billingCycleDate: null,
        estimateUnavailable:
          'The payment processor could not estimate the change now; no figure is shown. Try again in a moment.',
      });
    } finally {
      emulator.faults.length = 0;
    }
  });
});
