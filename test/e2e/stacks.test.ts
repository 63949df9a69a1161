import { describe, expect, it } from 'vitest';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { DAY, localClient, prorationOf, sharedCloud } from '../support/local-cloud.ts';

/**
 * Stacks end to end on the shared `npm start`, with time travel: pay -> one Stack; preview and add
 * a Pro Stack -> two items at the processor and the preview's proration on the next invoice; the
 * Stack Cap, Projects at their cap; the reference Dispatcher applies each desired-state change;
 * leaving tears every Stack down only when decided, and frees its place.
 */

const cloud = localClient(sharedCloud);

describe('Stacks on npm start', () => {
  it('pay, preview, add, the Dispatcher applies, Projects stop at the cap, leaving tears down when decided', async () => {
    const tenant = await cloud.payingTenant('stacker', 'plus', { dispatcher: false });
    const call = (method: string, path: string, body?: unknown) => cloud.as(tenant, method, path, body);
    const first = await call('GET', '/v1/stacks');
    expect(first.body.stacks).toHaveLength(1);
    expect(first.body.stacks[0]).toMatchObject({ name: `${tenant.login}.stacks.localhost`, plan: 'plus' });

    // The reference Dispatcher of the first Stack.
    const { dispatcherId } = await cloud.startDispatcher(tenant, { stackId: 'primary' });
    expect((await call('GET', '/v1/stacks/primary')).body).toMatchObject({
      lifecycle: 'running',
      appliedVersion: 1,
    });

    // Ten days in: preview, then add a Pro Stack.
    await cloud.advance(10 * DAY);
    const preview = await call('POST', '/v1/stacks/preview', { plan: 'pro' });
    expect(preview.status).toBe(200);
    const shown = preview.body.estimate.adjustment as number;
    expect(shown).toBeGreaterThan(0);
    const added = await call('POST', '/v1/stacks', { plan: 'pro' });
    expect(added.status).toBe(201);
    expect(added.body.name).toBe(`s2.${tenant.login}.stacks.localhost`);
    expect(await cloud.itemsOf(tenant)).toEqual(['stack_plan_plus_monthlyx1', 'stack_plan_pro_monthlyx1']);

    // The next invoice carries the proration the preview showed (within the seconds between them).
    await cloud.pastRenewalOf(tenant);
    const renewal = (await cloud.invoicesOf(tenant)).find((i) => i.billing_reason === 'subscription_cycle');
    expect(Math.abs(prorationOf(renewal) - shown)).toBeLessThanOrEqual(2);

    // The Stack Cap (5 by default): three more fit, the sixth is refused.
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/v1/stacks', { plan: 'standard' })).status).toBe(201);
    const capped = await call('POST', '/v1/stacks', { plan: 'standard' });
    expect(capped.status).toBe(409);
    expect(capped.body.error.code).toBe('stack_cap_reached');

    // Projects stop at the Plus Stack's cap of 6.
    const project = (name: string) =>
      call('POST', '/v1/stacks/primary/projects', { name, repository: `${tenant.login}/${name}` });
    for (let i = 0; i < 6; i++) expect((await project(`p${i}`)).status).toBe(201);
    const full = await project('p7');
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({
      error: { code: 'watched_projects_cap_reached' },
      watchedProjectsCap: 6,
    });

    // Leaving through the portal: every Stack's desired state changes at once; nothing is torn down before the paid period ends.
    const portal = (await call('POST', '/v1/billing/portal')).body.url;
    await cancelInPortal(portal);
    await cloud.billingStateOnceSwept(tenant, 'decommissioning');
    await cloud.tick(dispatcherId);
    const leaving = (await call('GET', '/v1/stacks')).body.stacks as {
      stackId: string;
      lifecycle: string;
      appliedVersion: number | null;
      desiredStateVersion: number;
    }[];
    expect(leaving.map((s) => s.lifecycle)).toEqual(Array(5).fill('decommissioning'));
    const primary = leaving.find((s) => s.stackId === 'primary');
    expect(primary?.appliedVersion).toBe(primary?.desiredStateVersion);

    // The paid period ends: Stacks without a Dispatcher are torn down by the sweep; the first one
    // when its Dispatcher confirms (the places given back are checked in test/integration/fleet.test.ts).
    await cloud.advance(32 * DAY);
    await cloud.sweep();
    expect((await call('GET', '/v1/stacks/primary')).body.lifecycle).toBe('decommissioning');
    await cloud.tick(dispatcherId);
    await cloud.sweep();
    const gone = (await call('GET', '/v1/stacks')).body.stacks as { lifecycle: string }[];
    expect(gone.map((s) => s.lifecycle)).toEqual(Array(5).fill('torn_down'));
    const status = (await call('GET', '/v1/billing/status')).body;
    expect(status.closing).toMatchObject({ tornDown: true, billingStopped: true });
  });
});
