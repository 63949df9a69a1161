import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelInPortal, payOnCheckout, TEST_CARDS, updateCardInPortal } from '../support/hosted-pages.ts';
import {
  json,
  newDataDirectory,
  type Running,
  startLocalServer,
  stopLocalServer,
} from '../support/local-server.ts';

/** The billing lifecycle on `npm start`, with time travel, driven over HTTP. */

let server: Running;
beforeAll(async () => {
  server = await startLocalServer(newDataDirectory(), ['--fresh']);
}, 90_000);
afterAll(async () => {
  if (server) expect(await stopLocalServer(server)).toBe(0);
});

const DAY = 86_400;
const postJson = (path: string, body: unknown, token?: string) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

/** A fresh session (time travel outlives the 7-day sessions). */
const session = async (login: string) =>
  (await json(await postJson('/_local/sign-in', { login }))).body.sessionToken as string;

const status = async (login: string) =>
  (
    await json(
      await fetch(`${server.url}/v1/billing/status`, {
        headers: { authorization: `Bearer ${await session(login)}` },
      }),
    )
  ).body;

/** Waits (sweeping on demand) until the tenant reaches `state`: webhooks arrive asynchronously. */
const eventually = async (login: string, state: string, sweep = true) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (sweep) await fetch(`${server.url}/_local/sweep`, { method: 'POST' });
    const current = await status(login);
    if (current.billingState === state) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${login} never reached ${state}: ${JSON.stringify(await status(login))}`);
};

const advance = (seconds: number) => postJson('/_local/clock/advance', { seconds });

/** The end (epoch seconds) of the tenant's paid period, read from the local processor's API. */
const periodEndOf = async (login: string): Promise<number> => {
  const { tenantId } = (await json(await postJson('/_local/sign-in', { login }))).body as {
    tenantId: string;
  };
  const environment = server.environment();
  const listed = await json(
    await fetch(`${environment.PROCESSOR_API_URL}/v1/subscriptions?status=all`, {
      headers: { authorization: `Bearer ${environment.PROCESSOR_API_KEY}` },
    }),
  );
  const subscription = (
    listed.body.data as {
      metadata: { tenantId?: string };
      items: { data: { current_period_end: number }[] };
    }[]
  ).find((s) => s.metadata.tenantId === tenantId);
  const periodEnd = subscription?.items.data[0]?.current_period_end;
  if (typeof periodEnd !== 'number') throw new Error(`no subscription for ${login}`);
  return periodEnd;
};

const subscribe = async (login: string, card: string) => {
  const token = await session(login);
  expect((await postJson('/v1/tenant/slug', { slug: `${login}-co` }, token)).status).toBe(200);
  const checkout = await json(await postJson('/v1/billing/checkout', { plan: 'plus' }, token));
  expect((await payOnCheckout(checkout.body.url, card)).status).toBe(303);
  const portal = await json(
    await fetch(`${server.url}/v1/billing/portal`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return portal.body.url as string;
};

describe('the billing lifecycle on npm start', () => {
  it('a paid checkout shows active within seconds, without waiting for the schedule (intake nudges the sweep)', async () => {
    await subscribe('quick', TEST_CARDS.succeeds);
    const active = await eventually('quick', 'active', false);
    expect(active.history).toEqual([
      expect.objectContaining({ from: 'provisioning', to: 'active', reason: 'checkout_completed' }),
    ]);
    const me = await json(
      await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${await session('quick')}` } }),
    );
    expect(me.body.billingState).toBe('active');
  });

  it('renewal fails -> past-due; +7 days -> suspended; +14 days -> decommissioning; a second tenant recovers in the portal; a third cancels', async () => {
    const firstPortal = await subscribe('first', TEST_CARDS.failsLater);
    const secondPortal = await subscribe('second', TEST_CARDS.failsLater);
    const thirdPortal = await subscribe('third', TEST_CARDS.succeeds);
    for (const login of ['first', 'second', 'third']) await eventually(login, 'active');

    // The renewal a month later fails for the first two: at the end of the paid period.
    const renewalAt = await periodEndOf('first');
    await advance(31 * DAY);
    const pastDue = await eventually('first', 'past-due');
    await eventually('second', 'past-due');
    // The grace runs from the failed renewal as the processor reports it, not from when we looked.
    expect(pastDue.graceDeadline).toBe(new Date((renewalAt + 7 * DAY) * 1000).toISOString());

    await cancelInPortal(thirdPortal);
    await eventually('third', 'decommissioning');

    await advance(7 * DAY);
    await eventually('first', 'suspended');
    await eventually('second', 'suspended');

    await updateCardInPortal(secondPortal, TEST_CARDS.succeeds);
    const recovered = await eventually('second', 'active');
    expect(recovered.history.at(-1)).toMatchObject({
      from: 'suspended',
      to: 'active',
      reason: 'payment_recovered',
    });

    await advance(14 * DAY);
    const gone = await eventually('first', 'decommissioning');
    expect(gone.history.map((h: { to: string }) => h.to)).toEqual([
      'active',
      'past-due',
      'suspended',
      'decommissioning',
    ]);

    // Nothing brings it back: not a card update, not more time.
    await updateCardInPortal(firstPortal, TEST_CARDS.succeeds);
    await advance(40 * DAY);
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/_local/sweep`, { method: 'POST' });
    expect((await status('first')).billingState).toBe('decommissioning');
    expect((await status('third')).billingState).toBe('decommissioning');
  }, 60_000);
});
