import { describe, expect, it } from 'vitest';
import { PLANS } from '#core/plans.ts';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { TEST_CARDS } from '../support/hosted-pages.ts';
import { waitingForWork } from '../support/plan-change-answers.ts';
import {
  outboxFor,
  planChangeExport,
  planChangeWorld,
  slotOf as slot,
} from '../support/plan-change-world.ts';
import { processorView } from '../support/processor-view.ts';
import { expectRefusedAnswer } from '../support/refusals.ts';

/**
 * Plan Changes end to end in one process: the confirm / cancel / read routes, the workflow run by
 * the local Step Functions stand-in from statemachines/plan-change.asl.json with the real task
 * handlers, the reference Dispatcher carrying out each step, and the processor emulator billing.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { payingWithDispatcher, confirm, read, until, completes, nextRuns } = planChangeWorld(api);
const { subscriptionOf, itemsByPlan, updatesOf } = processorView(emulator);
type Paying = Awaited<ReturnType<typeof payingWithDispatcher>>;

describe('an immediate upgrade', () => {
  it('waits for work, backs up, switches, verifies, commits billing exactly, completes, one email', async () => {
    const tenant = await payingWithDispatcher('plus');
    const confirmed = await confirm(tenant, 'pro', 'up-1');
    expect(confirmed.status).toBe(202);
    expect(confirmed.json).toMatchObject(waitingForWork('plus', 'pro'));
    expect(confirmed.json.estimate.adjustment).toBeGreaterThan(0);
    // The place is held at once: the pro slot has one place fewer to give.
    const held = await listInventory(tenant.region);
    expect(held.reservations.filter((r) => r.tenantId === `change:${confirmed.json.changeId}`)).toHaveLength(
      1,
    );

    const done = await completes(tenant, confirmed.json.changeId);
    // Billing: one update with our key, the price swapped, quantity kept, the cycle date unchanged.
    const updates = updatesOf(tenant.tenantId);
    expect(updates).toHaveLength(1);
    expect(updates[0]?.idempotencyKey).toBe(`plan-change:${confirmed.json.changeId}`);
    expect(updates[0]?.params).toMatchObject({
      proration_behavior: 'create_prorations',
      billing_cycle_anchor: { type: 'unchanged' },
    });
    expect(itemsByPlan(tenant.tenantId)).toEqual({ pro: 1 });
    // The exact adjustment is the processor's pending proration lines, beside the estimate.
    const pending = Object.values(emulator.state.invoiceItems).filter(
      (i) => i.subscription === subscriptionOf(tenant.tenantId).id && i.invoice === null && i.proration,
    );
    expect(done.final.adjustment).toBe(pending.reduce((sum, i) => sum + i.amount, 0));
    expect(done.final.adjustment).toBeGreaterThan(0);
    expect(done.final.estimatedAdjustment).toBe(confirmed.json.estimate.adjustment);
    expect(done.final.explanation).toMatch(/equals the estimate|fewer days/);
    // The Stack runs on pro; its old place is given back, the held one became its placement.
    const stack = (await api.call('GET', `/v1/stacks/${tenant.stackId}`, { token: tenant.sessionToken }))
      .json;
    expect(stack).toMatchObject({ plan: 'pro', caps: { runCap: PLANS.pro.runCap } });
    expect((await slot(tenant.region, `${tenant.region}-a`, 'plus'))?.used).toBe(0);
    expect((await slot(tenant.region, `${tenant.region}-a`, 'pro'))?.used).toBe(1);
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
    await api.fleet.tick();
    const desired = api.fleet.status(tenant.dispatcherId);
    expect(desired).toMatchObject({ admission: 'open' });
    // Exactly one email, for the completion.
    const emails = await outboxFor(confirmed.json.changeId);
    expect(emails.map((e) => e.subject)).toEqual([`${tenant.stackName} now runs on the Pro Plan`]);
    // A replayed confirmation answers the same change and starts nothing more.
    const again = await confirm(tenant, 'pro', 'up-1');
    expect(again.json.changeId).toBe(confirmed.json.changeId);
    expect(updatesOf(tenant.tenantId)).toHaveLength(1);
  });
});

describe('a downgrade', () => {
  it('credits the balance, never cash: a negative adjustment, no refund', async () => {
    const tenant = await payingWithDispatcher('pro');
    const confirmed = await confirm(tenant, 'standard');
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.final.adjustment).toBeLessThan(0);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ standard: 1 });
    expect(
      emulator.calls.filter((c) => c.path.startsWith('/v1/refunds') && c.method === 'POST'),
    ).toHaveLength(0);
  });
});

describe('a queued change', () => {
  it('waits for capacity, then completes elsewhere in the Home Region when a place opens; the email says the IP changed', async () => {
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 } });
    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.json.status).toBe('waiting_for_capacity');
    // The workflow looked for a place again and found none: still waiting.
    await nextRuns(confirmed.json.changeId, 'FindCapacity');
    expect((await read(tenant, confirmed.json.changeId)).status).toBe('waiting_for_capacity');
    await setCapacityTotal(
      { region: tenant.region, location: `${tenant.region}-b`, plan: 'pro', total: 1 },
      api.clock.now(),
    );
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.status).toBe('completed');
    expect(done.location).toEqual({
      from: `${tenant.region}-a`,
      to: `${tenant.region}-b`,
      addressChanged: true,
    });
    const [email] = await outboxFor(confirmed.json.changeId);
    expect(email?.text).toContain('IP address changed');
    expect((await slot(tenant.region, `${tenant.region}-b`, 'pro'))?.used).toBe(1);
    expect((await slot(tenant.region, `${tenant.region}-a`, 'plus'))?.used).toBe(0);
  });

  it('expires 7 days after confirmation with the Plan and billing untouched, one email', async () => {
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 } });
    const confirmed = await confirm(tenant, 'pro');
    api.clock.advance(7 * 86_400 + 60);
    // Sessions last less than 7 days: sign in again, as the tenant would.
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    const ended = await until(tenant, confirmed.json.changeId, ['expired']);
    expect(ended.recovery).toContain('confirm the change again');
    expect(updatesOf(tenant.tenantId)).toHaveLength(0);
    expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
    expect((await outboxFor(confirmed.json.changeId)).map((e) => e.subject)).toEqual([
      `The Plan Change of ${tenant.stackName} expired`,
    ]);
    const stack = (await api.call('GET', `/v1/stacks/${tenant.stackId}`, { token: tenant.sessionToken }))
      .json;
    expect(stack.plan).toBe('plus');
  });

  it('is superseded by a second confirmation: its execution stops, it stays in history', async () => {
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 } });
    const first = await confirm(tenant, 'pro');
    const second = await confirm(tenant, 'standard');
    expect(second.status).toBe(202);
    expect((await read(tenant, first.json.changeId)).status).toBe('superseded');
    await until(tenant, second.json.changeId, ['completed']);
    // Stopped, or ended on its own at its next look (it finds itself superseded): never still running.
    expect(['ABORTED', 'SUCCEEDED']).toContain(api.stepFunctions.execution(first.json.changeId)?.status);
    const listed = await api.call('GET', `/v1/plan-changes?stackId=${tenant.stackId}`, {
      token: tenant.sessionToken,
    });
    expect(listed.json.planChanges.map((c: { status: string }) => c.status)).toEqual([
      'completed',
      'superseded',
    ]);
  });
});

describe('a tenant that leaves active while its change waits', () => {
  it('rolls the queued change back (never cancelled), nothing billed, one rolled-back email', async () => {
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 }, card: TEST_CARDS.failsLater });
    api.clock.advance(29 * 86_400);
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    const confirmed = await confirm(tenant, 'pro');
    expect(confirmed.json.status).toBe('waiting_for_capacity');
    // The renewal fails: the sweep moves the tenant to past-due.
    api.clock.advance(3 * 86_400);
    await api.sweep();
    tenant.sessionToken = (await api.signIn(tenant.login)).sessionToken;
    const ended = await until(tenant, confirmed.json.changeId, ['cancelled', 'expired', 'rolled_back']);
    expect(ended.status).toBe('rolled_back');
    expect(ended.reasonCode).toBe('billing_overdue');
    expect(ended.outcome).toContain('billing became overdue');
    expect(updatesOf(tenant.tenantId)).toHaveLength(0);
    expect((await outboxFor(confirmed.json.changeId)).map((e) => e.subject)).toEqual([
      `The Plan Change of ${tenant.stackName} was rolled back`,
    ]);
    const refused = await confirm(tenant, 'standard');
    expect([refused.status, refused.json.error.code]).toEqual([409, 'billing_overdue']);
  });
});

describe('cancel', () => {
  it('succeeds while waiting for work: admission reopens on the previous Plan, the place is released, billing untouched', async () => {
    const tenant = await payingWithDispatcher('plus');
    // An active run keeps the change in Waiting for Work.
    await api.call('POST', `/_local/fleet/dispatchers/${tenant.dispatcherId}/runs`, { body: { start: 1 } });
    const confirmed = await confirm(tenant, 'pro');
    await api.fleet.tick();
    // The workflow looked at the reported work again after the poll: still waiting for it.
    await nextRuns(confirmed.json.changeId, 'DrainWork');
    expect((await read(tenant, confirmed.json.changeId)).status).toBe('waiting_for_work');
    const cancelled = await api.call('POST', `/v1/plan-changes/${confirmed.json.changeId}/cancel`, {
      token: tenant.sessionToken,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    expect((await listInventory(tenant.region)).reservations).toEqual([]);
    await api.fleet.tick();
    expect(api.fleet.status(tenant.dispatcherId)).toMatchObject({ admission: 'open' });
    expect(updatesOf(tenant.tenantId)).toHaveLength(0);
    expect(await outboxFor(confirmed.json.changeId)).toEqual([]);
  });

  it('is refused once Preparing began, with its own code; the change then completes', async () => {
    const tenant = await payingWithDispatcher('plus');
    api.fleet.injectFault(tenant.dispatcherId, { step: 'backup', kind: 'delay', polls: 3 });
    const confirmed = await confirm(tenant, 'pro');
    await until(tenant, confirmed.json.changeId, ['preparing']);
    const refused = await api.call('POST', `/v1/plan-changes/${confirmed.json.changeId}/cancel`, {
      token: tenant.sessionToken,
    });
    expectRefusedAnswer(
      refused,
      409,
      {
        code: 'plan_change_not_cancellable',
        message:
          'This change is preparing: the cancel window closed when the final backup began (Preparing). It completes or rolls back on its own.',
      },
      { status: 'preparing' },
    );
    expect((await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back'])).status).toBe(
      'completed',
    );
  });
});

describe('faults roll back with billing untouched', () => {
  for (const step of ['switch', 'verify'] as const) {
    it(`a failure in ${step === 'switch' ? 'Switching' : 'Verifying'}`, async () => {
      const tenant = await payingWithDispatcher('plus');
      api.fleet.injectFault(tenant.dispatcherId, { step, kind: 'fail', reason: 'disk full' });
      const confirmed = await confirm(tenant, 'pro');
      const ended = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
      expect(ended.status).toBe('rolled_back');
      // Our reason for the step; the Dispatcher's words stay with operators.
      expect(ended.reasonCode).toBe(`${step}_failed`);
      expect(ended.outcome).toContain('billing is unchanged');
      expect(ended.outcome).not.toContain('disk full');
      expect(updatesOf(tenant.tenantId)).toHaveLength(0);
      expect(itemsByPlan(tenant.tenantId)).toEqual({ plus: 1 });
      expect((await listInventory(tenant.region)).reservations).toEqual([]);
      expect((await slot(tenant.region, `${tenant.region}-a`, 'pro'))?.used).toBe(0);
      const stack = (await api.call('GET', `/v1/stacks/${tenant.stackId}`, { token: tenant.sessionToken }))
        .json;
      expect(stack.plan).toBe('plus');
      expect((await outboxFor(confirmed.json.changeId)).map((e) => e.subject)).toEqual([
        `The Plan Change of ${tenant.stackName} was rolled back`,
      ]);
    });
  }
});

describe('refusals write nothing', () => {
  it('answers its own code: unchanged Plan, another operation running, a member, an unknown Stack', async () => {
    const tenant = await payingWithDispatcher('plus');
    const same = await confirm(tenant, 'plus');
    expect([same.status, same.json.error.code]).toEqual([409, 'plan_unchanged']);
    api.fleet.injectFault(tenant.dispatcherId, { step: 'backup', kind: 'delay', polls: 50 });
    const first = await confirm(tenant, 'pro');
    await until(tenant, first.json.changeId, ['preparing']);
    const busy = await confirm(tenant, 'standard');
    expect([busy.status, busy.json.error.code]).toEqual([409, 'operation_in_progress']);
    const unknown = await api.call('POST', '/v1/stacks/stk_nope/plan-changes', {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    expect(unknown.status).toBe(404);
    const listed = await api.call('GET', `/v1/plan-changes?stackId=${tenant.stackId}`, {
      token: tenant.sessionToken,
    });
    expect(listed.json.planChanges).toHaveLength(1);
    api.fleet.clearFaults(tenant.dispatcherId);
    await until(tenant, first.json.changeId, ['completed']);
  });
});

describe('the record and the audit export', () => {
  it('never carry processor ids, credentials, storage locators or operator identities; the export route is not an id', async () => {
    const tenant = await payingWithDispatcher('plus');
    const confirmed = await confirm(tenant, 'pro');
    await until(tenant, confirmed.json.changeId, ['completed']);
    const bodies = [
      JSON.stringify(confirmed.json),
      JSON.stringify(await read(tenant, confirmed.json.changeId)),
      JSON.stringify((await api.call('GET', '/v1/plan-changes', { token: tenant.sessionToken })).json),
    ];
    const exported = await planChangeExport(api, tenant);
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toContain('application/x-ndjson');
    const lines = exported.body.toString('utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).changeId)).toEqual([confirmed.json.changeId]);
    bodies.push(exported.body.toString('utf8'));
    const subscription = subscriptionOf(tenant.tenantId);
    for (const body of bodies) {
      expect(body).not.toMatch(/\b(sub|cus|si|ii|in|pi|price|prod|cs)_[A-Za-z0-9]{6,}/);
      expect(body).not.toContain(subscription.id);
      expect(body).not.toMatch(/arn:aws|requestedBy|scd_|s3:\/\/|change:/);
      expect(body).not.toContain(tenant.userId);
    }
  });
});

describe('Credentials move with the Stack', () => {
  /** A validated api_key Credential routed for dispatch on a new Project of the tenant's first Stack. */
  const withCredential = async (tenant: Paying) => {
    const provisioned = await api.call('POST', `/v1/credentials/work-key?stackId=${tenant.stackId}`, {
      token: tenant.sessionToken,
      body: { provider: 'provider-c', kind: 'api_key', material: 'sk-test-moves-with-the-stack' },
    });
    expect(provisioned.status).toBe(201);
    const project = await api.call('POST', `/v1/stacks/${tenant.stackId}/projects`, {
      token: tenant.sessionToken,
      body: { name: 'app', repository: 'acme/app' },
    });
    expect(project.status).toBe(201);
    const routed = await api.call(
      'PUT',
      `/v1/stacks/${tenant.stackId}/projects/${project.json.projectId}/credential-routes`,
      { token: tenant.sessionToken, body: { dispatch: { primary: 'work-key' } } },
    );
    expect(routed.status).toBe(200);
    await api.fleet.tick();
    const listed = await api.call('GET', `/v1/credentials?stackId=${tenant.stackId}`, {
      token: tenant.sessionToken,
    });
    expect(listed.json.credentials[0]).toMatchObject({
      name: 'work-key',
      validation: { state: 'valid' },
      usable: true,
    });
    return { projectId: project.json.projectId as string, before: listed.json.credentials[0] };
  };
  const thread = (tenant: Paying, projectId: string, threadId: string) =>
    api.fleet.createThread(tenant.dispatcherId, { threadId, projectId, activity: 'dispatch' });

  it('after a completed change the replacement creates Threads with the same Credential', async () => {
    const tenant = await payingWithDispatcher('plus', { capacity: { pro: 0 } });
    const { projectId } = await withCredential(tenant);
    expect((await thread(tenant, projectId, 'before-move'))?.status).toBe(200);
    const confirmed = await confirm(tenant, 'pro');
    await setCapacityTotal(
      { region: tenant.region, location: `${tenant.region}-b`, plan: 'pro', total: 1 },
      api.clock.now(),
    );
    const done = await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back']);
    expect(done.location.to).toBe(`${tenant.region}-b`);
    const after = await thread(tenant, projectId, 'after-move');
    expect(after?.status).toBe(200);
    expect(after?.body).toMatchObject({
      credential: { name: 'work-key', provider: 'provider-c', kind: 'api_key', position: 'primary' },
      inject: { env: { PROVIDER_C_API_KEY: 'sk-test-moves-with-the-stack' } },
    });
  });

  it('after a rolled back change the Credential is unchanged', async () => {
    const tenant = await payingWithDispatcher('plus');
    const { projectId, before } = await withCredential(tenant);
    api.fleet.injectFault(tenant.dispatcherId, {
      step: 'switch',
      kind: 'fail',
      reason: 'no room on the host',
    });
    const confirmed = await confirm(tenant, 'pro');
    expect((await until(tenant, confirmed.json.changeId, ['completed', 'rolled_back'])).status).toBe(
      'rolled_back',
    );
    const listed = await api.call('GET', `/v1/credentials?stackId=${tenant.stackId}`, {
      token: tenant.sessionToken,
    });
    expect(listed.json.credentials[0]).toEqual(before);
    expect((await thread(tenant, projectId, 'after-rollback'))?.status).toBe(200);
  });
});
