import { describe, expect, it } from 'vitest';
import { gatewayForFile } from '../support/file-gateway.ts';
import { regionWithPlaces, type TestControlPlane } from '../support/gateway.ts';

/**
 * The Plan Change preview's warnings, where the new Plan fits, and an estimate the processor
 * cannot give: each shown when it applies and only then.
 */

const { api, emulator } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;
const preview = (tenant: Tenant, plan: string) =>
  api.call('POST', '/v1/stacks/primary/plan-changes/preview', { token: tenant.sessionToken, body: { plan } });
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
    const atCap = await preview(tenant, 'standard');
    expect(atCap.json.warnings.filter((w: string) => w.includes('Projects'))).toEqual([]);
    await addProjects(tenant, 4, 4);
    const over = await preview(tenant, 'standard');
    expect(over.json.warnings).toContain(
      "The Stack watches 4 Projects, more than the standard Plan's 3: they stay watched, and no new Project can be registered until fewer remain.",
    );
  });
});

describe('the Founding Price Lock warning', () => {
  it('on a change to another Plan, never when the Plan would not change', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const other = await preview(tenant, 'pro');
    expect(other.json.priceLock).toMatchObject({ state: 'locked' });
    expect(other.json.warnings).toHaveLength(1);
    expect(other.json.warnings[0]).toMatch(/^This Stack keeps the Founding Price Lock at US\$50\.00 a month/);
    const same = await preview(tenant, 'plus');
    expect(same.json.warnings).toEqual([]);
    // Nothing to estimate either: the Plan is unchanged.
    expect(same.json).toMatchObject({ estimate: null, estimateUnavailable: null, billingCycleDate: null });
  });
});

describe('where the new Plan fits', () => {
  it("elsewhere in the Home Region when the Stack's location is full, and would queue when none has room", async () => {
    const region = await regionWithPlaces(api.clock, { a: { standard: 1, pro: 0 }, b: { pro: 1 } });
    const tenant = await api.subscribe({ plan: 'standard', region });
    expect((await preview(tenant, 'pro')).json.requested.capacity).toBe('placeable_elsewhere_in_home_region');
    expect((await preview(tenant, 'plus')).json.requested.capacity).toBe('would_queue');
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
      const answer = await preview(tenant, 'pro');
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
