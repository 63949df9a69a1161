import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { getTenant } from '#store/tenants.ts';
import { joinWaitlist } from '#store/waitlist.ts';
import { notifyWaitlist } from '../../functions/reconciler/waitlist.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo } from '../support/gateway.ts';
import {
  cancelInPortal,
  openPage,
  payOnCheckout,
  TEST_CARDS,
  updateCardInPortal,
} from '../support/hosted-pages.ts';

const { api } = gatewayForFile({ processor: true });

const portal = (token: string) => api.call('POST', '/v1/billing/portal', { token });

const subscribed = async (card: string = TEST_CARDS.succeeds) => {
  const tenant = await api.readyTenant();
  const { json } = await api.call('POST', '/v1/billing/checkout', {
    token: tenant.sessionToken,
    body: { plan: 'plus' },
  });
  expect((await payOnCheckout(json.url, card)).status).toBe(303);
  return tenant;
};

/** Portal sessions the processor opened for the tenant's customer. */
const portalSessionsOf = (tenantId: string) => {
  const customer = subscriptionOf(tenantId).customer;
  return Object.values(api.emulator?.state.portalSessions ?? {}).filter((s) => s.customer === customer);
};

/** The refusal a decommissioning tenant gets for anything new, with its teardown time as stored. */
const accountClosing = async (tenantId: string) => {
  const stored = await getTenant(tenantId);
  expect(stored?.billingState).toBe('decommissioning');
  const until = stored?.teardownAt ? ` until ${stored.teardownAt}` : ' until teardown';
  return {
    code: 'account_closing',
    message: `This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data${until}.`,
  };
};

/** A subscribed tenant that cancelled in the portal; the sweep has seen it (it is leaving). */
const leftInPortal = async () => {
  const tenant = await api.subscribe({ plan: 'plus' });
  const { json } = await portal(tenant.sessionToken);
  expect((await cancelInPortal(json.url)).status).toBe(303);
  await api.sweep();
  return tenant;
};

const subscriptionOf = (tenantId: string) => {
  const emulator = api.emulator;
  const found = Object.values(emulator?.state.subscriptions ?? {}).find(
    (s) => s.metadata.tenantId === tenantId,
  );
  if (!found) throw new Error('no subscription');
  return found;
};

describe('POST /v1/billing/portal', () => {
  it('is 409 no_customer before any checkout', async () => {
    const tenant = await api.readyTenant();
    const response = await portal(tenant.sessionToken);
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject({
      code: 'no_customer',
      message: 'There is no billing account yet: complete a checkout first.',
      apiHint: 'POST /v1/billing/checkout',
    });
  });

  it('a tenant that left (cancelled in the portal, seen by the sweep) is refused a new portal: 409 account_closing, no session opened', async () => {
    const tenant = await leftInPortal();
    const expected = await accountClosing(tenant.tenantId);
    const opened = portalSessionsOf(tenant.tenantId).length;
    expect(opened).toBe(1);

    const response = await portal(tenant.sessionToken);
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject(expected);
    expect(response.json.teardownAt).toBe((await getTenant(tenant.tenantId))?.teardownAt ?? null);
    expect(portalSessionsOf(tenant.tenantId)).toHaveLength(opened);
  });

  it('is for administrators only', async () => {
    const tenant = await subscribed();
    const login = `member-${Date.now()}`;
    await api.call('POST', '/_local/members', { token: tenant.sessionToken, body: { login } });
    const member = await api.signIn(login);
    expect((await portal(member.sessionToken)).status).toBe(403);
  });

  it('opens a portal that only updates the payment method and cancels', async () => {
    const tenant = await subscribed();
    const response = await portal(tenant.sessionToken);
    expect(response.status).toBe(200);
    expect(Object.keys(response.json)).toEqual(['url']);
    const page = await openPage(response.json.url);
    expect(page.html).toContain('Update payment method');
    expect(page.html).toContain('Cancel subscription');
    expect(page.html).not.toMatch(/change plan|switch plan|upgrade/i);
    const configuration = Object.values(api.emulator?.state.portalConfigurations ?? {})[0];
    expect(configuration).toMatchObject({
      paymentMethodUpdate: true,
      subscriptionCancel: true,
      subscriptionUpdate: false,
    });
  });

  it('cancelling in the portal schedules the end of the subscription at the period end', async () => {
    const tenant = await subscribed();
    const { json } = await portal(tenant.sessionToken);
    const cancelled = await cancelInPortal(json.url);
    expect(cancelled.status).toBe(303);
    expect(cancelled.location).toBe('https://app.test/');
    const subscription = subscriptionOf(tenant.tenantId);
    expect(subscription.cancelAtPeriodEnd).toBe(true);
    expect(subscription.status).toBe('active');
  });

  it('a failing renewal leaves the subscription past_due; a card update in the portal pays it and recovers', async () => {
    const tenant = await subscribed(TEST_CARDS.failsLater);
    const { json } = await portal(tenant.sessionToken);
    api.clock.advance(32 * 86400);
    expect(subscriptionOf(tenant.tenantId).status).toBe('past_due');
    const declined = await updateCardInPortal(json.url, TEST_CARDS.declined);
    expect(declined.html).toContain('Your card was declined.');
    expect(subscriptionOf(tenant.tenantId).status).toBe('past_due');
    const updated = await updateCardInPortal(json.url, TEST_CARDS.succeeds);
    expect(updated.status).toBe(200);
    expect(subscriptionOf(tenant.tenantId).status).toBe('active');
  });
});

/**
 * `count` made-up tenants waiting for `plan` in a new region with one place; the region sorts after
 * the file's other regions in the waitlist index, so these entries come last.
 */
const waitingInNewRegion = async (plan: 'plus' | 'pro', count: number) => {
  const tenant = await api.readyTenant();
  const region = `zzzz-${randomUUID().slice(0, 8)}`;
  await setCapacityTotal({ region, location: `${region}-a`, plan, total: 1 }, api.clock.now());
  const tenantIds = Array.from({ length: count }, () => randomUUID());
  for (const tenantId of tenantIds)
    await joinWaitlist({ tenantId, plan, region, joinedBy: tenant.userId }, api.clock.now());
  return tenantIds;
};

/** `POST /v1/billing/waitlist` for `plan`, as the signed-in `who`. */
const joinAs = (who: { sessionToken: string }, plan: string) =>
  api.call('POST', '/v1/billing/waitlist', { token: who.sessionToken, body: { plan } });

describe('POST /v1/billing/waitlist', () => {
  it('a tenant that is leaving (cancelled in the portal, seen by the sweep) is refused: 409 account_closing, no entry written', async () => {
    const tenant = await leftInPortal();
    const expected = await accountClosing(tenant.tenantId);

    const response = await joinAs(tenant, 'pro');
    expect(response.status).toBe(409);
    expect(response.json.error).toMatchObject(expected);
    const { Item } = await db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.waitlist(tenant.tenantId, 'pro'),
        ConsistentRead: true,
      }),
    );
    expect(Item).toBeUndefined();
    const me = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
    expect(me.json.waitlist).toEqual([]);
  });

  it('joins explicitly, once per tenant and Plan: a repeat answers the same entry', async () => {
    const tenant = await api.readyTenant();
    const first = await joinAs(tenant, 'pro');
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ plan: 'pro', notified: false, homeRegion: tenant.region });
    api.clock.advance(60);
    const again = await joinAs(tenant, 'pro');
    expect(again.status).toBe(200);
    expect(again.json.joinedAt).toBe(first.json.joinedAt);
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.waitlist(tenant.tenantId, 'pro') }),
    );
    expect(Item).toMatchObject({
      GSI1PK: 'WAITLIST',
      GSI1SK: expect.stringMatching(new RegExp(`^${tenant.region}#pro#`)),
    });
  });

  it('joining again after being notified re-arms the entry: waiting again, from now, and notified again', async () => {
    const tenant = await api.readyTenant();
    const join = () => joinAs(tenant, 'pro');
    const first = await join();
    expect(first.status).toBe(201);
    // The tenant's region has free places: the next sweep notifies it.
    await api.sweep();
    await api.sweep();
    const entryKey = keys.waitlist(tenant.tenantId, 'pro');
    const notified = (await db().send(new GetCommand({ TableName: tableName(), Key: entryKey }))).Item;
    expect(notified?.notifiedAt).toEqual(expect.any(String));
    expect(notified?.GSI1PK).toBeUndefined();
    const address = `${tenant.login}@users.code-host.test`;
    expect(await emailsTo(address)).toHaveLength(1);

    api.clock.advance(3600);
    const again = await join();
    expect(again.status).toBe(201);
    expect(again.json.notified).toBe(false);
    // A new join time: from now (an hour on), not the first join's.
    expect(Date.parse(again.json.joinedAt)).toBeGreaterThanOrEqual(
      Date.parse(first.json.joinedAt) + 3_600_000,
    );
    const rearmed = (await db().send(new GetCommand({ TableName: tableName(), Key: entryKey }))).Item;
    expect(rearmed?.notifiedAt).toBeUndefined();
    expect(rearmed).toMatchObject({
      joinedAt: again.json.joinedAt,
      GSI1PK: 'WAITLIST',
      GSI1SK: `${tenant.region}#pro#${again.json.joinedAt}#${tenant.tenantId}`,
    });
    // Still waiting: a repeat now answers the same entry.
    expect((await join()).status).toBe(200);

    await api.sweep();
    await api.sweep();
    expect(await emailsTo(address)).toHaveLength(2);
  });

  it('the sweep reads the whole waitlist, page by page: more than 200 waiting are all notified', async () => {
    const tenantIds = await waitingInNewRegion('pro', 205);

    await notifyWaitlist(api.clock.now());

    const entries: Record<string, unknown>[] = [];
    for (let start = 0; start < tenantIds.length; start += 100) {
      const { Responses } = await db().send(
        new BatchGetCommand({
          RequestItems: {
            [tableName()]: {
              Keys: tenantIds.slice(start, start + 100).map((tenantId) => keys.waitlist(tenantId, 'pro')),
            },
          },
        }),
      );
      entries.push(...(Responses?.[tableName()] ?? []));
    }
    expect(entries).toHaveLength(205);
    expect(entries.filter((entry) => entry.notifiedAt === undefined)).toHaveLength(0);
  });

  it('pages with any page size (a small one here)', async () => {
    const tenantIds = await waitingInNewRegion('plus', 7);
    const { itemsRead } = await notifyWaitlist(api.clock.now(), 2);
    expect(itemsRead).toBeGreaterThanOrEqual(7);
    for (const tenantId of tenantIds) {
      const { Item } = await db().send(
        new GetCommand({ TableName: tableName(), Key: keys.waitlist(tenantId, 'plus') }),
      );
      expect(Item?.notifiedAt).toEqual(expect.any(String));
    }
  });

  it('a repeat join that reads back an entry the sweep notified meanwhile answers it as notified', async () => {
    const tenant = await api.readyTenant();
    const first = await joinAs(tenant, 'pro');
    expect(first.status).toBe(201);
    // The repeat finds the entry still waiting (its write is refused); before it reads the entry
    // back, the sweep notifies it (the tenant's region has free places).
    const entryKey = keys.waitlist(tenant.tenantId, 'pro');
    const client = db();
    const original = client.send;
    let notifiedMeanwhile = false;
    client.send = (async (command: { input: Record<string, unknown> }, ...rest: unknown[]) => {
      const input = command.input as { Key?: Record<string, unknown>; ConsistentRead?: boolean };
      const isReadBack =
        command.constructor.name === 'GetCommand' &&
        input.ConsistentRead === true &&
        JSON.stringify(input.Key) === JSON.stringify(entryKey);
      if (isReadBack && !notifiedMeanwhile) {
        notifiedMeanwhile = true;
        client.send = original;
        await notifyWaitlist(api.clock.now());
      }
      return (original as (...args: unknown[]) => Promise<unknown>).call(client, command, ...rest);
    }) as typeof client.send;
    let again: Awaited<ReturnType<typeof joinAs>>;
    try {
      again = await joinAs(tenant, 'pro');
    } finally {
      client.send = original;
    }
    expect(notifiedMeanwhile).toBe(true);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ plan: 'pro', joinedAt: first.json.joinedAt, notified: true });
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: entryKey, ConsistentRead: true }),
    );
    expect(Item?.notifiedAt).toEqual(expect.any(String));
  });

  it('refuses an unknown Plan and writes nothing', async () => {
    const tenant = await api.readyTenant();
    const response = await joinAs(tenant, 'gold');
    expect(response.status).toBe(400);
    expect(response.json.error.field).toBe('plan');
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.waitlist(tenant.tenantId, 'gold') }),
    );
    expect(Item).toBeUndefined();
  });

  it('is for administrators only', async () => {
    const tenant = await api.readyTenant();
    const login = `member-${Date.now()}`;
    await api.call('POST', '/_local/members', { token: tenant.sessionToken, body: { login } });
    const member = await api.signIn(login);
    const response = await joinAs(member, 'pro');
    expect(response.status).toBe(403);
  });
});

describe('GET /v1/me shows what a reload must not lose', () => {
  it('lists the Plans the tenant waits for, and a close asked for but not yet carried out', async () => {
    const tenant = await api.readyTenant();
    const before = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
    expect(before.json).toMatchObject({ waitlist: [], closeRequestedAt: null });

    const joined = await joinAs(tenant, 'pro');
    expect(joined.status).toBe(201);
    const me = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
    expect(me.json.waitlist).toEqual([
      { plan: 'pro', homeRegion: tenant.region, joinedAt: joined.json.joinedAt, notified: false },
    ]);
    // Who joined (a user id) stays ours.
    expect(JSON.stringify(me.json.waitlist)).not.toContain('joinedBy');

    api.clock.advance(30);
    const askedFrom = api.clock.now().getTime();
    expect((await api.call('POST', '/v1/tenant/close', { token: tenant.sessionToken })).status).toBe(202);
    const askedBy = api.clock.now().getTime();
    const closing = await api.call('GET', '/v1/me', { token: tenant.sessionToken });
    expect(closing.json.billingState).toBe('provisioning');
    const askedAt = Date.parse(closing.json.closeRequestedAt);
    expect(askedAt).toBeGreaterThanOrEqual(askedFrom);
    expect(askedAt).toBeLessThanOrEqual(askedBy);
  });
});
