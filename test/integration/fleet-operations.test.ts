import { describe, expect, it } from 'vitest';
import type { StackOperation } from '#core/stacks.ts';
import { listInventory } from '#store/capacity.ts';
import { getStack, stackUpdateWrite } from '#store/stacks.ts';
import { applyStackWrites } from '#store/transact.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';

/**
 * The reference Dispatcher (lib/local/fleet.ts) carries out a Plan Change's steps from the desired
 * state and reports each outcome in the observed state; faults make a step fail or take longer;
 * a teardown confirmation waits while the change is past its cancel window.
 */

const { api } = gatewayForFile({ processor: true });

/** A paying tenant whose primary Stack has a started Dispatcher that knows its location. */
const withDispatcher = async (plan = 'plus') => {
  const tenant = await api.subscribe({ plan });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  const credential = issued.json.credential as string;
  const location = `${tenant.region}-a`;
  const started = await api.call('POST', '/_local/fleet/dispatchers', { body: { credential, location } });
  expect(started.status).toBe(201);
  return {
    tenant,
    credential,
    location,
    stackName: `${tenant.slug}.stacks.test`,
    dispatcherId: started.json.dispatcherId as string,
  };
};

const stored = async (tenantId: string) => {
  const stack = await getStack(tenantId, 'primary');
  if (!stack) throw new Error('no Stack');
  return stack;
};

/** What the Plan Change workflow will do: put (or end) an operation on the Stack, a new desired version. */
const setOperation = async (
  tenantId: string,
  operation: StackOperation | undefined,
  change: Record<string, unknown> = {},
) => {
  const stack = await stored(tenantId);
  expect(
    await applyStackWrites([stackUpdateWrite(tenantId, stack, { ...stack, ...change, operation })]),
  ).toBe(true);
};

const planChange = (id: string, step: StackOperation['step'], location: string): StackOperation => ({
  kind: 'plan_change',
  id,
  step,
  target: { plan: 'pro', location },
});

const tick = () => api.call('POST', '/_local/fleet/tick');
/** Gives the Stack `operation`, lets the fleet poll once, and answers what its Dispatcher reported of it. */
const reportedFor = async (tenantId: string, operation: StackOperation) => {
  await setOperation(tenantId, operation);
  await tick();
  return (await stored(tenantId)).observed?.operation;
};
const runs = (dispatcherId: string, body: { start?: number; finish?: number }) =>
  api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/runs`, { body });

describe('the reference Dispatcher carries out Plan Change steps', () => {
  it('backup: the desired state pauses admission and carries the operation; the outcome is reported in the same poll, and again later', async () => {
    const { tenant, credential, location, dispatcherId } = await withDispatcher();
    await setOperation(tenant.tenantId, planChange('pc_test', 'backup', location));
    const desired = await api.call('GET', '/v1/dispatcher/desired-state', { token: credential });
    expect(desired.json).toMatchObject({
      version: 2,
      admission: 'paused',
      operation: {
        id: 'pc_test',
        kind: 'plan_change',
        step: 'backup',
        target: { plan: 'pro', location, run_cap: 5 },
      },
    });
    expect((await stored(tenant.tenantId)).observed?.operation).toBeUndefined();

    await tick();
    const after = await stored(tenant.tenantId);
    expect(after.observed).toMatchObject({ appliedVersion: 2, health: 'healthy' });
    expect(after.observed?.operation).toEqual({ id: 'pc_test', step: 'backup', outcome: 'done' });

    const reportedAt = after.observed?.reportedAt;
    api.clock.advance(10);
    await tick();
    const later = await stored(tenant.tenantId);
    expect(later.observed?.reportedAt).not.toBe(reportedAt);
    expect(later.observed?.operation).toEqual({ id: 'pc_test', step: 'backup', outcome: 'done' });
    expect(api.fleet.status(dispatcherId)?.lastOperation).toEqual(later.observed?.operation);
  });

  it('switch: a fail fault reports failed with its reason, once; a switch elsewhere reports the address changed, in place it does not', async () => {
    const { tenant, location, dispatcherId } = await withDispatcher();
    const elsewhere = `${tenant.region}-b`;
    api.fleet.injectFault(dispatcherId, { step: 'switch', kind: 'fail', reason: 'no volume left at b' });
    expect(api.fleet.status(dispatcherId)?.pendingFaults).toEqual([
      { step: 'switch', kind: 'fail', reason: 'no volume left at b' },
    ]);

    expect(await reportedFor(tenant.tenantId, planChange('pc_fail', 'switch', elsewhere))).toEqual({
      id: 'pc_fail',
      step: 'switch',
      outcome: 'failed',
      reason: 'no volume left at b',
    });
    expect(api.fleet.status(dispatcherId)).toMatchObject({ pendingFaults: [], location });

    // One-shot: the next change's switch succeeds; in the same location the address is kept.
    const switched = (id: string, addressChanged: boolean) => ({
      id,
      step: 'switch',
      outcome: 'done',
      addressChanged,
    });
    const here = await reportedFor(tenant.tenantId, planChange('pc_here', 'switch', location));
    expect(here).toEqual(switched('pc_here', false));

    const moved = await reportedFor(tenant.tenantId, planChange('pc_move', 'switch', elsewhere));
    expect(moved).toEqual(switched('pc_move', true));
    expect(api.fleet.status(dispatcherId)?.location).toBe(elsewhere);
  });

  it('a sticky fail fault hits every occurrence of its step; a failed verify reports unhealthy', async () => {
    const { tenant, location, dispatcherId } = await withDispatcher();
    api.fleet.injectFault(dispatcherId, { step: 'verify', kind: 'fail', sticky: true });
    for (const id of ['pc_one', 'pc_two']) {
      await setOperation(tenant.tenantId, planChange(id, 'verify', location));
      await tick();
      expect((await stored(tenant.tenantId)).observed).toMatchObject({
        health: 'unhealthy',
        operation: { id, step: 'verify', outcome: 'failed', reason: expect.stringMatching(/healthy/) },
      });
    }
    expect(api.fleet.status(dispatcherId)?.pendingFaults).toHaveLength(1);
  });

  it('a delay of 2 polls: the step is reported done on the 3rd poll, not before; after verify the replacement is healthy', async () => {
    const { tenant, location, dispatcherId } = await withDispatcher();
    api.fleet.injectFault(dispatcherId, { step: 'verify', kind: 'delay', polls: 2 });
    await setOperation(tenant.tenantId, planChange('pc_slow', 'verify', location));
    for (const poll of [1, 2]) {
      await tick();
      const observed = (await stored(tenant.tenantId)).observed;
      expect(observed?.operation, `poll ${poll}`).toBeUndefined();
      expect(observed, `poll ${poll}`).toMatchObject({ appliedVersion: 1, health: 'unknown' });
    }
    await tick();
    expect((await stored(tenant.tenantId)).observed).toMatchObject({
      appliedVersion: 2,
      health: 'healthy',
      operation: { id: 'pc_slow', step: 'verify', outcome: 'done' },
    });
  });

  it('drain: new runs are refused while admission is paused, active runs go on and finish; a failed drain holds its runs', async () => {
    const { tenant, location, dispatcherId } = await withDispatcher();
    expect((await runs(dispatcherId, { start: 2 })).json).toMatchObject({ started: 2, activeRuns: 2 });

    await setOperation(tenant.tenantId, planChange('pc_drain', 'drain', location));
    await tick();
    expect((await stored(tenant.tenantId)).observed).toMatchObject({ appliedVersion: 2, activeRuns: 2 });
    expect(api.fleet.status(dispatcherId)?.admission).toBe('paused');
    expect((await runs(dispatcherId, { start: 1 })).json).toMatchObject({ started: 0, refused: 1 });
    expect((await runs(dispatcherId, { finish: 1 })).json).toMatchObject({ finished: 1, activeRuns: 1 });
    await tick();
    expect((await stored(tenant.tenantId)).observed).toMatchObject({ activeRuns: 1 });
    expect((await stored(tenant.tenantId)).observed?.operation).toBeUndefined();

    // The change rolls back: admission reopens. A later change's drain hits a fail fault.
    await setOperation(tenant.tenantId, undefined);
    await tick();
    expect((await runs(dispatcherId, { start: 1 })).json).toMatchObject({ started: 1, activeRuns: 2 });
    api.fleet.injectFault(dispatcherId, { step: 'drain', kind: 'fail' });
    await setOperation(tenant.tenantId, planChange('pc_stuck', 'drain', location));
    await tick();
    expect((await runs(dispatcherId, { finish: 2 })).json).toMatchObject({ finished: 0, activeRuns: 2 });
    const cleared = await api.call('DELETE', `/_local/fleet/faults?dispatcherId=${dispatcherId}`);
    expect(cleared.status).toBe(200);
    expect((await runs(dispatcherId, { finish: 2 })).json).toMatchObject({ finished: 2, activeRuns: 0 });
  });

  it('a teardown confirmed during a switch does not tear the Stack down; once the change ends, it does', async () => {
    const { tenant, location } = await withDispatcher('pro');
    const used = async () => (await listInventory(tenant.region)).slots.find((s) => s.plan === 'pro')?.used;
    await setOperation(tenant.tenantId, planChange('pc_late', 'switch', location));
    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url,
    );
    await api.sweep();
    expect(await stored(tenant.tenantId)).toMatchObject({
      lifecycle: 'decommissioning',
      operation: { id: 'pc_late' },
    });
    api.clock.advance(32 * 86_400);
    await api.sweep();
    await tick();
    expect(api.fleet.list().find((d) => d.stack === `${tenant.slug}.stacks.test`)?.tornDown).toBe(true);
    const during = await stored(tenant.tenantId);
    expect(during.lifecycle).toBe('decommissioning');
    expect(during.observed?.tornDown).toBe(false);
    await api.sweep();
    expect((await stored(tenant.tenantId)).lifecycle).toBe('decommissioning');
    expect(await used()).toBe(1);

    await setOperation(tenant.tenantId, undefined);
    await tick();
    expect((await stored(tenant.tenantId)).lifecycle).toBe('torn_down');
    expect(await used()).toBe(0);
  });
});

describe('PUT /v1/dispatcher/observed-state with an operation', () => {
  it('stores an operation report as reported, even for another change; refuses a bad step, a long reason, an unknown field', async () => {
    const { tenant, credential } = await withDispatcher();
    await setOperation(tenant.tenantId, planChange('pc_current', 'switch', `${tenant.region}-a`));
    const put = (operation: unknown) =>
      api.call('PUT', '/v1/dispatcher/observed-state', {
        token: credential,
        body: { appliedVersion: 2, health: 'healthy', activeRuns: 0, operation },
      });
    const other = { id: 'pc_other', step: 'switch', outcome: 'done', addressChanged: true };
    expect((await put(other)).status).toBe(200);
    expect((await stored(tenant.tenantId)).observed?.operation).toEqual(other);

    const refused = [
      [{ id: 'pc_current', step: 'drain', outcome: 'done' }, 'operation.step'],
      [{ id: 'pc_current', step: 'switch', outcome: 'maybe' }, 'operation.outcome'],
      [{ id: 'pc_current', step: 'switch', outcome: 'failed', reason: 'x'.repeat(501) }, 'operation.reason'],
      [
        { id: 'pc_current', step: 'switch', outcome: 'done', addressChanged: 'yes' },
        'operation.addressChanged',
      ],
      [{ id: 'pc_current', step: 'switch', outcome: 'done', extra: 1 }, 'operation.extra'],
    ] as const;
    for (const [operation, field] of refused) {
      const answer = await put(operation);
      expect(answer.status, field).toBe(400);
      expect(answer.json.error.field).toBe(field);
    }
    expect((await stored(tenant.tenantId)).observed?.operation).toEqual(other);
    const failed = { id: 'pc_current', step: 'switch', outcome: 'failed', reason: 'x'.repeat(500) };
    expect((await put(failed)).status).toBe(200);
    expect((await stored(tenant.tenantId)).observed?.operation).toEqual(failed);
  });
});

describe('POST /_local/fleet/faults and DELETE /_local/fleet/faults', () => {
  it('injects a step fault by Stack name over HTTP, shows it pending, uses it, and clears faults', async () => {
    const { tenant, location, stackName, dispatcherId } = await withDispatcher();
    const injected = await api.call('POST', '/_local/fleet/faults', {
      body: { stack: stackName, step: 'backup', kind: 'delay', polls: 1 },
    });
    expect(injected.status).toBe(200);
    expect(injected.json).toMatchObject({
      dispatcherId,
      stack: stackName,
      pendingFaults: [{ step: 'backup', kind: 'delay', polls: 1 }],
    });
    await api.call('POST', '/_local/fleet/faults', {
      body: { dispatcherId, step: 'switch', kind: 'fail', sticky: true },
    });
    await setOperation(tenant.tenantId, planChange('pc_http', 'backup', location));
    await tick();
    expect((await stored(tenant.tenantId)).observed?.operation).toBeUndefined();
    await tick();
    expect((await stored(tenant.tenantId)).observed?.operation).toMatchObject({ outcome: 'done' });

    const fleet = (await api.call('GET', '/_local/fleet')).json.dispatchers;
    expect(fleet.find((d: { dispatcherId: string }) => d.dispatcherId === dispatcherId)).toMatchObject({
      pendingFaults: [{ step: 'switch', kind: 'fail', sticky: true }],
      lastOperation: { id: 'pc_http', step: 'backup', outcome: 'done' },
    });
    const cleared = await api.call('DELETE', `/_local/fleet/faults?stack=${stackName}`);
    expect(cleared.status).toBe(200);
    expect(cleared.json).toMatchObject({ dispatcherId, pendingFaults: [], fault: null });
    await setOperation(tenant.tenantId, planChange('pc_http', 'switch', location));
    await tick();
    expect((await stored(tenant.tenantId)).observed?.operation).toMatchObject({
      step: 'switch',
      outcome: 'done',
    });
  });

  it('refuses a body it cannot use with a 400 that says what to fix; an unknown Dispatcher is a 404', async () => {
    const { dispatcherId, stackName } = await withDispatcher();
    const post = (body: unknown) => api.call('POST', '/_local/fleet/faults', { body });
    const cases: [unknown, string, RegExp][] = [
      [{ dispatcherId, step: 'explode', kind: 'fail' }, 'step', /drain/],
      [{ dispatcherId, step: 'switch', kind: 'crash' }, 'kind', /delay/],
      [{ dispatcherId, step: 'switch' }, 'kind', /required/],
      [{ dispatcherId }, 'step', /required/],
      [{ step: 'switch', kind: 'fail' }, 'dispatcherId', /exactly one/],
      [{ dispatcherId, stack: stackName, step: 'switch', kind: 'fail' }, 'stack', /exactly one/],
      [{ dispatcherId, step: 'switch', kind: 'fail', polls: 2 }, 'polls', /delay/],
      [{ dispatcherId, step: 'switch', kind: 'delay', polls: 0 }, 'polls', /expected >=1/],
      [{ dispatcherId, step: 'switch', kind: 'delay', reason: 'why' }, 'reason', /fail/],
      [{ dispatcherId, fault: 'unhealthy', step: 'switch' }, 'step', /either/],
      [{ dispatcherId, step: 'switch', kind: 'fail', when: 'now' }, 'when', /Unknown field/],
    ];
    for (const [body, field, message] of cases) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.field, JSON.stringify(body)).toBe(field);
      expect(answer.json.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(api.fleet.status(dispatcherId)?.pendingFaults).toEqual([]);
    expect((await post({ dispatcherId: 'dsp-999', step: 'switch', kind: 'fail' })).status).toBe(404);
    expect((await post({ stack: 'nobody.stacks.test', step: 'switch', kind: 'fail' })).status).toBe(404);
    expect((await api.call('DELETE', '/_local/fleet/faults')).status).toBe(400);
    expect((await api.call('DELETE', '/_local/fleet/faults?dispatcherId=dsp-999')).status).toBe(404);
  });
});
