import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { listInventory, setCapacityTotal } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { moveToRegion, uniqueLogin, uniqueRegion } from '../support/gateway.ts';

const { api } = gatewayForFile({ processor: true });

/** A tenant in a Home Region of its own, so its capacity is not shared with other tests. */
const tenantInOwnRegion = async () => {
  const session = await api.signIn(uniqueLogin('plans'));
  const region = uniqueRegion();
  await moveToRegion(session.tenantId, region);
  return { ...session, region };
};

describe('GET /v1/billing/plans', () => {
  it('returns the three Plans with the spec values', async () => {
    const { sessionToken, region } = await tenantInOwnRegion();
    const response = await api.call('GET', '/v1/billing/plans', { token: sessionToken });
    expect(response.status).toBe(200);
    expect(response.json.homeRegion).toBe(region);
    /** A Plan as the spec gives it (shared vCPUs, USD a month), not placeable (no capacity here). */
    const plan = (
      value: string,
      name: string,
      amount: number,
      [vcpu, memoryGb, storageGb]: number[],
      [runCap, reserveCap, watchedProjectsCap]: number[],
    ) => ({
      value,
      name,
      monthlyPrice: { amount, currency: 'USD' },
      resources: { vcpu, vcpuKind: 'shared', memoryGb, storageGb },
      runCap,
      reserveCap,
      watchedProjectsCap,
      placeable: false,
    });
    expect(response.json.plans).toEqual([
      plan('standard', 'Standard', 4000, [2, 4, 40], [1, 1, 3]),
      plan('plus', 'Plus', 5000, [4, 8, 80], [3, 1, 6]),
      plan('pro', 'Pro', 6000, [8, 16, 160], [5, 2, 12]),
    ]);
  });

  it('placeable follows the capacity inventory of the caller’s Home Region, per Plan', async () => {
    const { sessionToken, region } = await tenantInOwnRegion();
    const now = api.clock.now();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'standard', total: 3 }, now);
    await setCapacityTotal({ region, location: `${region}-b`, plan: 'plus', total: 1 }, now);
    await setCapacityTotal({ region, location: `${region}-b`, plan: 'pro', total: 0 }, now);
    await setCapacityTotal({ region: `${region}-elsewhere`, location: 'x', plan: 'pro', total: 9 }, now);

    const response = await api.call('GET', '/v1/billing/plans', { token: sessionToken });
    const placeable = Object.fromEntries(
      response.json.plans.map((p: { value: string; placeable: boolean }) => [p.value, p.placeable]),
    );
    expect(placeable).toEqual({ standard: true, plus: true, pro: false });

    await setCapacityTotal({ region, location: `${region}-b`, plan: 'pro', total: 1 }, now);
    const after = await api.call('GET', '/v1/billing/plans', { token: sessionToken });
    expect(after.json.plans.find((p: { value: string }) => p.value === 'pro').placeable).toBe(true);
  });

  it('counts the caller’s own checkout reservation as its checkout does: holding the last place, its Plan is placeable to it and to no one else', async () => {
    const region = uniqueRegion();
    await setCapacityTotal({ region, location: `${region}-a`, plan: 'plus', total: 1 }, api.clock.now());
    const holder = await api.readyTenant(region);
    const other = await api.readyTenant(region);
    const placeableTo = async (token: string) =>
      (await api.call('GET', '/v1/billing/plans', { token })).json.plans.find(
        (p: { value: string }) => p.value === 'plus',
      ).placeable;
    expect(await placeableTo(holder.sessionToken)).toBe(true);

    // The holder's checkout takes the one place of Plus (a reservation, until paid or expired).
    const started = await api.call('POST', '/v1/billing/checkout', {
      token: holder.sessionToken,
      body: { plan: 'plus' },
    });
    expect(started.status).toBe(200);
    expect((await listInventory(region)).reservations).toMatchObject([
      { tenantId: holder.tenantId, plan: 'plus' },
    ]);

    // To the holder, Plus is still placeable: the place is its own, and its checkout agrees.
    expect(await placeableTo(holder.sessionToken)).toBe(true);
    const again = await api.call('POST', '/v1/billing/checkout', {
      token: holder.sessionToken,
      body: { plan: 'plus' },
    });
    expect(again.status).toBe(200);
    // To anyone else it is taken, and their checkout is refused alike.
    expect(await placeableTo(other.sessionToken)).toBe(false);
    const refused = await api.call('POST', '/v1/billing/checkout', {
      token: other.sessionToken,
      body: { plan: 'plus' },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.availablePlans).not.toContain('plus');
  });

  it('is refused without a session', async () => {
    const response = await api.call('GET', '/v1/billing/plans');
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('missing_session');
  });

  it('carries no processor ids', async () => {
    const { sessionToken } = await api.signIn(uniqueLogin());
    const response = await api.call('GET', '/v1/billing/plans', { token: sessionToken });
    expect(JSON.stringify(response.json)).not.toMatch(/\b(cus|sub|pi|in|price|prod|si)_[A-Za-z0-9]/);
  });
});

describe('rejected requests write nothing', () => {
  it('a sign-in with an invalid login creates no identity', async () => {
    const response = await api.call('POST', '/_local/sign-in', { body: { login: 'not a login' } });
    expect(response.status).toBe(400);
    expect(response.json.error.field).toBe('login');
    const identity = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.identity('local', 'not a login') }),
    );
    expect(identity.Item).toBeUndefined();
  });

  it('a sign-in with an unknown field creates no identity', async () => {
    const login = uniqueLogin();
    const response = await api.call('POST', '/_local/sign-in', { body: { login, admin: true } });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'unknown_field', field: 'admin' });
    const identity = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.identity('local', login) }),
    );
    expect(identity.Item).toBeUndefined();
  });
});

describe('API Gateway behaviour of the local gateway', () => {
  it('an unknown route is 404', async () => {
    expect((await api.call('GET', '/v1/nothing-here')).status).toBe(404);
  });

  it('a known path with another method is 404 like API Gateway', async () => {
    expect((await api.call('DELETE', '/v1/billing/plans')).status).toBe(404);
  });
});
