import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelInPortal } from '../support/hosted-pages.ts';
import {
  json,
  newDataDirectory,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/**
 * Stacks end to end on `npm start`, with time travel: pay -> one Stack; preview and add a Pro Stack
 * -> two items at the processor and the preview's proration on the next invoice; the Stack Cap,
 * Projects at their cap; the reference Dispatcher applies each desired-state change; leaving
 * tears every Stack down only when decided, and frees its place.
 */

let server: Running;
beforeAll(async () => {
  server = await startLocalServer(newDataDirectory(), ['--fresh', '--manual-sweep']);
}, 90_000);
afterAll(async () => {
  if (server) expect(await stopLocalServer(server)).toBe(0);
});

const DAY = 86_400;
const call = async (method: string, path: string, body?: unknown, token?: string) =>
  json(
    await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
const signIn = async (login: string) =>
  (await call('POST', '/_local/sign-in', { login })).body.sessionToken as string;
const sweep = () => call('POST', '/_local/sweep');
const advance = (seconds: number) => call('POST', '/_local/clock/advance', { seconds });

/** The processor's own view (its API, with the local test key): the tenant's subscription and invoices. */
const processor = async (path: string) => {
  const environment = server.environment();
  return (
    await json(
      await fetch(`${environment.PROCESSOR_API_URL}${path}`, {
        headers: { authorization: `Bearer ${environment.PROCESSOR_API_KEY}` },
      }),
    )
  ).body;
};
const subscriptionOf = async (tenantId: string) =>
  (
    (await processor('/v1/subscriptions?status=all')).data as {
      id: string;
      status: string;
      metadata: { tenantId?: string };
      items: { data: { price: { lookup_key: string }; quantity: number; current_period_end: number }[] };
    }[]
  ).find((s) => s.metadata.tenantId === tenantId);

describe('Stacks on npm start', () => {
  it('pay, preview, add, the Dispatcher applies, Projects stop at the cap, leaving tears down when decided', async () => {
    let token = await signIn('stacker');
    const { tenantId } = (await call('POST', '/_local/sign-in', { login: 'stacker' })).body;
    expect((await call('POST', '/v1/tenant/slug', { slug: 'stacker' }, token)).status).toBe(200);
    const checkout = await call('POST', '/v1/billing/checkout', { plan: 'plus' }, token);
    const sessionId = new URL(checkout.body.url).pathname.split('/').at(-1);
    expect(
      (await call('POST', `/_local/processor/checkout/${sessionId}/pay`, { card: '4242 4242 4242 4242' }))
        .status,
    ).toBe(200);
    await sweep();
    const first = await call('GET', '/v1/stacks', undefined, token);
    expect(first.body.stacks).toHaveLength(1);
    expect(first.body.stacks[0]).toMatchObject({ name: 'stacker.stacks.localhost', plan: 'plus' });

    // The reference Dispatcher of the first Stack.
    const credential = (await call('POST', '/v1/stacks/primary/dispatcher-credential', undefined, token)).body
      .credential;
    const dispatcher = await call('POST', '/_local/fleet/dispatchers', { credential });
    expect(dispatcher.status).toBe(201);
    expect((await call('GET', '/v1/stacks/primary', undefined, token)).body).toMatchObject({
      lifecycle: 'running',
      appliedVersion: 1,
    });

    // Ten days in: preview, then add a Pro Stack.
    await advance(10 * DAY);
    token = await signIn('stacker');
    const preview = await call('POST', '/v1/stacks/preview', { plan: 'pro' }, token);
    expect(preview.status).toBe(200);
    const shown = preview.body.estimate.adjustment as number;
    expect(shown).toBeGreaterThan(0);
    const added = await call('POST', '/v1/stacks', { plan: 'pro' }, token);
    expect(added.status).toBe(201);
    expect(added.body.name).toBe('s2.stacker.stacks.localhost');
    const subscription = await subscriptionOf(tenantId);
    expect(subscription?.items.data.map((i) => `${i.price.lookup_key}x${i.quantity}`).sort()).toEqual([
      'stack_plan_plus_monthlyx1',
      'stack_plan_pro_monthlyx1',
    ]);

    // The next invoice carries the proration the preview showed (within the seconds between them).
    const periodEnd = subscription?.items.data[0]?.current_period_end ?? 0;
    const nowSeconds = Math.floor(Date.parse((await call('GET', '/_local/clock')).body.now) / 1000);
    await advance(periodEnd - nowSeconds + 60);
    await sweep();
    const invoices = (await processor(`/v1/invoices?subscription=${subscription?.id}`)).data as {
      billing_reason: string;
      lines: {
        data: {
          amount: number;
          parent: {
            subscription_item_details?: { proration?: boolean };
            invoice_item_details?: { proration?: boolean };
          };
        }[];
      };
    }[];
    const renewal = invoices.find((i) => i.billing_reason === 'subscription_cycle');
    const prorated = (renewal?.lines.data ?? [])
      .filter(
        (l) => l.parent.subscription_item_details?.proration || l.parent.invoice_item_details?.proration,
      )
      .reduce((sum, l) => sum + l.amount, 0);
    expect(Math.abs(prorated - shown)).toBeLessThanOrEqual(2);

    token = await signIn('stacker');
    // The Stack Cap (5 by default): three more fit, the sixth is refused.
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/v1/stacks', { plan: 'standard' }, token)).status).toBe(201);
    const capped = await call('POST', '/v1/stacks', { plan: 'standard' }, token);
    expect(capped.status).toBe(409);
    expect(capped.body.error.code).toBe('stack_cap_reached');

    // Projects stop at the Plus Stack's cap of 6.
    for (let i = 0; i < 6; i++)
      expect(
        (
          await call(
            'POST',
            '/v1/stacks/primary/projects',
            { name: `p${i}`, repository: `stacker/p${i}` },
            token,
          )
        ).status,
      ).toBe(201);
    const full = await call(
      'POST',
      '/v1/stacks/primary/projects',
      { name: 'p7', repository: 'stacker/p7' },
      token,
    );
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({
      error: { code: 'watched_projects_cap_reached' },
      watchedProjectsCap: 6,
    });

    // Leaving through the portal: every Stack's desired state changes at once; nothing is torn down before the paid period ends.
    token = await signIn('stacker');
    const portal = (await call('POST', '/v1/billing/portal', undefined, token)).body.url;
    await cancelInPortal(portal);
    await sweep();
    await call('POST', '/_local/fleet/tick');
    const leaving = (await call('GET', '/v1/stacks', undefined, token)).body.stacks as {
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
    await advance(32 * DAY);
    await sweep();
    token = await signIn('stacker');
    expect((await call('GET', '/v1/stacks/primary', undefined, token)).body.lifecycle).toBe(
      'decommissioning',
    );
    await call('POST', '/_local/fleet/tick');
    await sweep();
    const gone = (await call('GET', '/v1/stacks', undefined, token)).body.stacks as { lifecycle: string }[];
    expect(gone.map((s) => s.lifecycle)).toEqual(Array(5).fill('torn_down'));
    const status = (await call('GET', '/v1/billing/status', undefined, token)).body;
    expect(status.closing).toMatchObject({ tornDown: true, billingStopped: true });
  });
});
