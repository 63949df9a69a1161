import { describe, expect, it } from 'vitest';
import { HEARTBEAT_SECONDS } from '#core/dispatcher.ts';
import { listInventory } from '#store/capacity.ts';
import { getStack } from '#store/stacks.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';

/**
 * The reference Dispatcher (lib/local/fleet.ts) over the real Dispatcher contract: it applies each
 * desired-state change and reports it; its admission gate holds run_cap; faults are injectable.
 */

const { api } = gatewayForFile({ processor: true });

const subscribedWithDispatcher = async (plan: string) => {
  const tenant = await api.subscribe({ plan });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential },
  });
  expect(started.status).toBe(201);
  return { tenant, dispatcherId: started.json.dispatcherId as string };
};

const stackView = async (token: string) => (await api.call('GET', '/v1/stacks/primary', { token })).json;
const tick = () => api.call('POST', '/_local/fleet/tick');

describe('the fleet simulator', () => {
  it('applies each desired-state change and reports it; GET /v1/stacks shows the applied version', async () => {
    const { tenant } = await subscribedWithDispatcher('standard');
    expect(await stackView(tenant.sessionToken)).toMatchObject({
      lifecycle: 'running',
      desiredStateVersion: 1,
      appliedVersion: 1,
      health: 'healthy',
    });
    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url,
    );
    await api.sweep();
    expect(await stackView(tenant.sessionToken)).toMatchObject({ desiredStateVersion: 2, appliedVersion: 1 });
    await tick();
    expect(await stackView(tenant.sessionToken)).toMatchObject({
      lifecycle: 'decommissioning',
      desiredStateVersion: 2,
      appliedVersion: 2,
    });
  });

  it('an idle Dispatcher reports only what changed, and a heartbeat: an unchanged poll writes nothing', async () => {
    const { tenant, dispatcherId } = await subscribedWithDispatcher('plus');
    const first = (await stackView(tenant.sessionToken)).lastReportAt as string;
    api.clock.advance(900);
    await tick();
    // Nothing changed and no heartbeat due: the poll was a 304 and no report was sent.
    expect((await stackView(tenant.sessionToken)).lastReportAt).toBe(first);
    await api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/runs`, { body: { start: 1 } });
    await tick();
    const changed = await stackView(tenant.sessionToken);
    expect(changed.activeRuns).toBe(1);
    expect(Date.parse(changed.lastReportAt)).toBeGreaterThan(Date.parse(first));
    api.clock.advance(HEARTBEAT_SECONDS);
    await tick();
    const heartbeat = await stackView(tenant.sessionToken);
    expect(Date.parse(heartbeat.lastReportAt)).toBeGreaterThanOrEqual(
      Date.parse(changed.lastReportAt) + HEARTBEAT_SECONDS * 1000,
    );
    expect(heartbeat.reportStale).toBe(false);
  });

  it('the admission gate holds run_cap and reports active runs', async () => {
    const { tenant, dispatcherId } = await subscribedWithDispatcher('plus');
    const runs = await api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/runs`, {
      body: { start: 5 },
    });
    expect(runs.json).toMatchObject({ started: 3, refused: 2, activeRuns: 3 });
    await tick();
    expect((await stackView(tenant.sessionToken)).activeRuns).toBe(3);
    const done = await api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/runs`, {
      body: { finish: 2 },
    });
    expect(done.json).toMatchObject({ finished: 2, activeRuns: 1 });
  });

  it('faults: unhealthy is reported, a silent Dispatcher reports nothing, a failed operation keeps the old version', async () => {
    const { tenant, dispatcherId } = await subscribedWithDispatcher('standard');
    const fault = (name: string) =>
      api.call('POST', '/_local/fleet/faults', { body: { dispatcherId, fault: name } });

    expect((await fault('unhealthy')).status).toBe(200);
    await tick();
    expect((await stackView(tenant.sessionToken)).health).toBe('unhealthy');

    await fault('stop_reporting');
    const before = (await getStack(tenant.tenantId, 'primary'))?.observed?.reportedAt;
    api.clock.advance(60);
    await tick();
    expect((await getStack(tenant.tenantId, 'primary'))?.observed?.reportedAt).toBe(before);

    await fault('fail_operation');
    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url,
    );
    await api.sweep();
    await tick();
    expect(await stackView(tenant.sessionToken)).toMatchObject({
      desiredStateVersion: 2,
      appliedVersion: 1,
      health: 'unhealthy',
    });

    await fault('none');
    await tick();
    expect(await stackView(tenant.sessionToken)).toMatchObject({ appliedVersion: 2, health: 'healthy' });
    const bad = await api.call('POST', '/_local/fleet/faults', { body: { dispatcherId, fault: 'explode' } });
    expect(bad.status).toBe(400);
    expect(
      (await api.call('POST', '/_local/fleet/faults', { body: { dispatcherId: 'dsp-999', fault: 'none' } }))
        .status,
    ).toBe(404);
  });

  it('teardown waits for the Dispatcher’s confirmation; then the place is given back and the Stack shows torn down', async () => {
    const { tenant } = await subscribedWithDispatcher('pro');
    const used = async () => (await listInventory(tenant.region)).slots.find((s) => s.plan === 'pro')?.used;
    expect(await used()).toBe(1);
    // What the Dispatcher reported and the Projects survive the desired-state changes of leaving.
    await api.call('POST', '/v1/stacks/primary/projects', {
      token: tenant.sessionToken,
      body: { name: 'app', repository: 'acme/app' },
    });
    await cancelInPortal(
      (await api.call('POST', '/v1/billing/portal', { token: tenant.sessionToken })).json.url,
    );
    await api.sweep();
    const leaving = await getStack(tenant.tenantId, 'primary');
    expect(leaving).toMatchObject({
      lifecycle: 'decommissioning',
      projectCount: 1,
      observed: { appliedVersion: 1 },
    });

    api.clock.advance(32 * 86_400);
    await api.sweep();
    // Past the teardown time, the Stack is still there until its Dispatcher confirms.
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('decommissioning');
    expect(await used()).toBe(1);
    await tick();
    expect((await getStack(tenant.tenantId, 'primary'))?.lifecycle).toBe('torn_down');
    expect(await used()).toBe(0);
    await api.sweep();
    const { sessionToken } = await api.signIn(tenant.login);
    const status = (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
    expect(status.closing).toMatchObject({ tornDown: true, billingStopped: true });
    expect((await api.call('GET', '/v1/stacks/primary', { token: sessionToken })).json.lifecycle).toBe(
      'torn_down',
    );
  });
});
