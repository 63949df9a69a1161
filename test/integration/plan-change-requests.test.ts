import { describe, expect, it } from 'vitest';
import { listInventory } from '#store/capacity.ts';
import { changeHolder } from '#store/plan-changes.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { regionWithPlaces, type TestControlPlane } from '../support/gateway.ts';
import { expectRefusedAnswer } from '../support/refusals.ts';

/**
 * The Plan Change requests (confirm, cancel, read) at their edges, without running a change to
 * its end: each refusal with its code, words and fields; what a cancel and a supersede record;
 * the place a confirmation holds.
 */

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;
const DAY_MS = 86_400_000;
const confirm = (tenant: Tenant, plan: string) =>
  api.call('POST', '/v1/stacks/primary/plan-changes', { token: tenant.sessionToken, body: { plan } });
const cancel = (tenant: Tenant, changeId: string) =>
  api.call('POST', `/v1/plan-changes/${changeId}/cancel`, { token: tenant.sessionToken });
const read = (tenant: Tenant, changeId: string) =>
  api.call('GET', `/v1/plan-changes/${changeId}`, { token: tenant.sessionToken });

describe('confirming', () => {
  it('holds a place in the Stack’s location for 30 days under a change id of its own shape', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const confirmed = await confirm(tenant, 'plus');
    expect(confirmed.status).toBe(202);
    const { changeId } = confirmed.json;
    expect(changeId).toMatch(/^pc_[0-9a-z]{9}[0-9a-f]{12}$/);
    const hold = (await listInventory(tenant.region)).reservations.find(
      (r) => r.tenantId === changeHolder(changeId),
    );
    expect(hold?.plan).toBe('plus');
    expect(Date.parse(hold?.expiresAt ?? '') - Date.parse(confirmed.json.confirmedAt)).toBe(30 * DAY_MS);
  });

  it('with a release gate down: 409 plan_changes_unavailable naming every gate not ready', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const saved = process.env.PLAN_CHANGE_GATES_READY;
    process.env.PLAN_CHANGE_GATES_READY = 'plan-catalog,replacement-path,reconciliation-loop';
    try {
      const refused = await confirm(tenant, 'plus');
      expectRefusedAnswer(
        refused,
        409,
        {
          code: 'plan_changes_unavailable',
          message:
            'Plan Changes are not available yet: these release gates are not ready: processor-integration, customer-contract.',
        },
        { gatesNotReady: ['processor-integration', 'customer-contract'] },
      );
    } finally {
      process.env.PLAN_CHANGE_GATES_READY = saved;
    }
    expect(
      (await api.call('GET', '/v1/plan-changes', { token: tenant.sessionToken })).json.planChanges,
    ).toEqual([]);
  });

  it('a second confirmation supersedes a change still waiting: the first says so and its execution stops', async () => {
    const region = await regionWithPlaces(api.clock, { a: { standard: 1, plus: 1, pro: 0 } });
    const tenant = await api.subscribe({ plan: 'standard', region });
    // No room for Pro anywhere: the first change waits for capacity.
    const first = await confirm(tenant, 'pro');
    expect(first.json.status).toBe('waiting_for_capacity');
    const second = await confirm(tenant, 'plus');
    expect(second.status).toBe(202);
    expect((await read(tenant, first.json.changeId)).json).toMatchObject({
      status: 'superseded',
      outcome:
        'A newer change of this Stack replaced this one. This change moved nothing, and billing is unchanged by it. Follow the newer change.',
    });
    expect(api.stepFunctions.execution(first.json.changeId)?.status).toBe('ABORTED');
  });
});

describe('cancelling', () => {
  it('records who ended it and stops its execution; a second cancel: 409 plan_change_ended with the status', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const { changeId } = (await confirm(tenant, 'plus')).json;
    const cancelled = await cancel(tenant, changeId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      status: 'cancelled',
      outcome:
        'An administrator cancelled the change before the move began. The Stack stays on its previous Plan and billing is unchanged. You may confirm a change again while billing is active.',
    });
    expect(api.stepFunctions.execution(changeId)).toMatchObject({
      status: 'ABORTED',
      error: 'PlanChange.Cancelled',
      cause: 'cancelled by an administrator',
    });
    const again = await cancel(tenant, changeId);
    expectRefusedAnswer(
      again,
      409,
      {
        code: 'plan_change_ended',
        message: 'This change has already ended (cancelled); there is nothing to cancel.',
      },
      { status: 'cancelled' },
    );
  });
});

describe('reading', () => {
  it('an unknown change: 404 saying where the changes are listed; another Stack: 404', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const unknown = await read(tenant, 'pc_000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({
      code: 'plan_change_not_found',
      message: 'This tenant has no Plan Change "pc_000000000000000000000": GET /v1/plan-changes lists them.',
    });
    // Only a whole id of our shape is looked up: anything before `pc_` or after its 40 characters
    // answers as unknown (a key longer than the table takes would otherwise fail the read).
    const long = 'a'.repeat(1100);
    for (const changeId of [`${long}pc_abc`, `pc_${long}`, 'xpc_abc', 'pc_abc!']) {
      const refused = await read(tenant, changeId);
      expect([refused.status, refused.json.error.code]).toEqual([404, 'plan_change_not_found']);
    }
    const otherStack = await api.call('GET', '/v1/plan-changes?stackId=s9', { token: tenant.sessionToken });
    expect(otherStack.status).toBe(404);
    expect(otherStack.json.error.code).toBe('stack_not_found');
  });
});
