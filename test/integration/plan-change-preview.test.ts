import { describe, expect, it } from 'vitest';
import { CONFIRM_REFUSAL_TEXT } from '../../functions/core/plan-change.ts';
import { gatewayForFile } from '../support/file-gateway.ts';

/** The Plan Change preview and the release gates, against DynamoDB Local and the processor emulator. */

const { api } = gatewayForFile({ processor: true });

const preview = (token: string, plan: string) =>
  api.call('POST', '/v1/stacks/primary/plan-changes/preview', { token, body: { plan } });

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
      { code: 'plan_unchanged', message: CONFIRM_REFUSAL_TEXT.plan_unchanged },
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
      message: 'Billing is overdue: pay the open invoice in the billing portal, then change the Plan.',
      apiHint: 'POST /v1/billing/portal',
    });
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
