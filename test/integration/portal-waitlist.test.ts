import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { type TestControlPlane, testGateway } from '../support/gateway.ts';
import {
  cancelInPortal,
  openPage,
  payOnCheckout,
  TEST_CARDS,
  updateCardInPortal,
} from '../support/hosted-pages.ts';

let api: TestControlPlane;
beforeAll(async () => {
  api = await testGateway({ processor: true });
});
afterAll(async () => {
  await api.stop();
});

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
    expect(response.json.error.code).toBe('no_customer');
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

describe('POST /v1/billing/waitlist', () => {
  it('joins explicitly, once per tenant and Plan: a repeat answers the same entry', async () => {
    const tenant = await api.readyTenant();
    const first = await api.call('POST', '/v1/billing/waitlist', {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ plan: 'pro', notified: false, homeRegion: tenant.region });
    api.clock.advance(60);
    const again = await api.call('POST', '/v1/billing/waitlist', {
      token: tenant.sessionToken,
      body: { plan: 'pro' },
    });
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

  it('refuses an unknown Plan and writes nothing', async () => {
    const tenant = await api.readyTenant();
    const response = await api.call('POST', '/v1/billing/waitlist', {
      token: tenant.sessionToken,
      body: { plan: 'gold' },
    });
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
    const response = await api.call('POST', '/v1/billing/waitlist', {
      token: member.sessionToken,
      body: { plan: 'pro' },
    });
    expect(response.status).toBe(403);
  });
});
