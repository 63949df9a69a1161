import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '#ports/logger.ts';
import { listInventory } from '#store/capacity.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { accountId, type LocalCodeHost } from '../../lib/local/code-host.ts';
import { signInThroughCodeHost, startFakeCodeHost } from '../support/code-host-flow.ts';
import { tableFaultsForFile } from '../support/faults.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type CallResult, type TestControlPlane, uniqueLogin } from '../support/gateway.ts';
import { processorView } from '../support/processor-view.ts';
import { tenantPartition } from '../support/stored.ts';

/**
 * A table fault a retry clears (issue 37, item 6): a transaction that meets another writer, or a
 * write the table throttles past the SDK's retries, answers 503 `temporarily_busy` with
 * Retry-After in our words, logs as what it is (never `unhandled error`), writes nothing, and the
 * retry goes through. This file's table calls go through a fault proxy in front of DynamoDB Local
 * (set before the first table call of the file, so the store's client is built on it).
 */

const board = await tableFaultsForFile(37);

let codeHost: LocalCodeHost;
beforeAll(async () => {
  codeHost = await startFakeCodeHost();
});
afterAll(async () => {
  await codeHost.stop();
});

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

/** The next transaction of the table meets another writer. */
const conflictOnce = () =>
  board.arm({
    dependency: 'table',
    operation: 'TransactWriteItems',
    fault: 'transaction-conflict',
    times: 1,
  });

/**
 * Runs `request` with the logger watched: what it answered, and the log lines written meanwhile
 * (`warn` for a retryable fault, `error` for a defect).
 */
const watched = async (request: () => Promise<CallResult>) => {
  const warn = vi.spyOn(logger, 'warn');
  const error = vi.spyOn(logger, 'error');
  try {
    const answer = await request();
    return {
      answer,
      warnings: warn.mock.calls.map((call) => call[0]),
      errors: error.mock.calls.map((call) => call[0]),
    };
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
};

/** The 503 a retryable fault answers: our words, Retry-After, logged as itself and not as a defect. */
const expectTryAgain = (seen: Awaited<ReturnType<typeof watched>>, retryAfter = 1) => {
  const { answer } = seen;
  expect(answer.status).toBe(503);
  expect(answer.headers['retry-after']).toBe(String(retryAfter));
  expect(answer.json).toMatchObject({
    error: { code: 'temporarily_busy', message: expect.stringContaining('was not saved') },
    retryAfterSeconds: retryAfter,
  });
  expect(JSON.stringify(answer.json)).not.toMatch(/Transaction|Exception|DynamoDB|injected/i);
  expect(seen.warnings).toContain('retryable table fault: answered 503 temporarily_busy');
  expect(seen.errors).not.toContain('unhandled error');
};

/** What a refused request must leave as it was: the tenant's items and its region's capacity. */
const snapshot = async (tenant: Tenant, options: { withoutKeys?: boolean } = {}) =>
  JSON.stringify({
    items: (await tenantPartition(tenant.tenantId)).filter(
      (item) => !(options.withoutKeys && String(item.SK).startsWith('IDEMPOTENCY#')),
    ),
    inventory: await listInventory(tenant.region),
  });

describe('a transaction conflict answers 503 temporarily_busy, writes nothing, and the retry goes through', () => {
  it('on checkout', async () => {
    const tenant = await api.readyTenant();
    const before = await snapshot(tenant);
    conflictOnce();
    const checkout = () =>
      api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan: 'plus' } });
    expectTryAgain(await watched(checkout));
    expect(board.status().armed).toEqual([]);
    expect(await snapshot(tenant)).toBe(before);
    const retried = await checkout();
    expect(retried.status).toBe(200);
    expect(retried.json.url).toContain('/c/pay/cs_');
  });

  it('on sign-in (the first one, which creates the user and tenant): a new sign-in goes through', async () => {
    const login = uniqueLogin('gh');
    const identity = async () =>
      (
        await db().send(
          new GetCommand({
            TableName: tableName(),
            Key: keys.identity('github', String(accountId(login))),
            ConsistentRead: true,
          }),
        )
      ).Item;
    conflictOnce();
    const failed = await watched(async () => (await signInThroughCodeHost(api, login)).callback);
    expectTryAgain(failed);
    // Its state is spent, so the words send the person back to the start.
    expect(failed.answer.json.error.message).toContain('Start again at');
    expect(failed.answer.cookies.join()).not.toContain('scp_session=');
    expect(await identity()).toBeUndefined();
    const again = await signInThroughCodeHost(api, login);
    expect(again.callback.status).toBe(200);
    const me = await api.call('GET', '/v1/me', { token: again.callback.json.sessionToken });
    expect(me.json).toMatchObject({ user: { login }, role: 'administrator' });
    expect(await identity()).toBeDefined();
  });

  it('on adding a Stack: nothing stored, nothing charged; the retry with the same key adds one', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const before = await snapshot(tenant);
    const items = JSON.stringify(subscriptionOf(tenant.tenantId).items);
    const add = () =>
      api.call('POST', '/v1/stacks', {
        token: tenant.sessionToken,
        body: { plan: 'plus' },
        headers: { 'idempotency-key': `add-${tenant.tenantId}` },
      });
    conflictOnce();
    expectTryAgain(await watched(add));
    // The key's decision (the new Stack's id) stays for the retry, its claim let go at once; no
    // Stack, no place, no charge.
    const key = (await tenantPartition(tenant.tenantId)).find((item) =>
      String(item.SK).startsWith('IDEMPOTENCY#'),
    );
    expect(key).toMatchObject({ state: 'pending', plan: { stackId: expect.any(String) } });
    expect(Date.parse(String(key?.inProgressUntil))).toBeLessThanOrEqual(api.clock.now().getTime());
    expect(await snapshot(tenant, { withoutKeys: true })).toBe(before);
    expect(JSON.stringify(subscriptionOf(tenant.tenantId).items)).toBe(items);
    const retried = await add();
    expect(retried.status).toBe(201);
    expect(subscriptionOf(tenant.tenantId).items.map((item) => item.quantity)).toEqual([2]);
  });

  it("on issuing a Stack's Dispatcher credential: none is issued; the retry's credential works", async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const before = await snapshot(tenant);
    const issue = () =>
      api.call('POST', '/v1/stacks/primary/dispatcher-credential', { token: tenant.sessionToken });
    conflictOnce();
    expectTryAgain(await watched(issue));
    expect(await snapshot(tenant)).toBe(before);
    const retried = await issue();
    expect(retried.status).toBe(201);
    expect(retried.json.previousCredentialValidUntil).toBeNull();
    const polled = await api.call('GET', '/v1/dispatcher/desired-state', { token: retried.json.credential });
    expect(polled.status).toBe(200);
  });
});

describe('a throttle the SDK could not retry away', () => {
  it('answers 503 temporarily_busy with its own wait, and the retry goes through', async () => {
    const tenant = await api.readyTenant();
    const before = await snapshot(tenant);
    // Every attempt the SDK makes (its first and its retries) is throttled.
    board.arm({ dependency: 'table', operation: 'TransactWriteItems', fault: 'throttle', times: 20 });
    const checkout = () =>
      api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan: 'plus' } });
    const seen = await watched(checkout);
    board.disarm();
    expectTryAgain(seen, 2);
    expect(await snapshot(tenant)).toBe(before);
    expect((await checkout()).status).toBe(200);
  });
});

describe('the reference Dispatcher meets a 503 temporarily_busy', () => {
  it('its typed client sends the report again after Retry-After, within the same poll', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
      token: tenant.sessionToken,
    });
    const started = await api.call('POST', '/_local/fleet/dispatchers', {
      body: { credential: issued.json.credential },
    });
    const dispatcherId = started.json.dispatcherId as string;
    // A run started: the next poll has something to report (an UpdateItem of the Stack).
    await api.call('POST', `/_local/fleet/dispatchers/${dispatcherId}/runs`, { body: { start: 1 } });
    const warn = vi.spyOn(logger, 'warn');
    try {
      // Every attempt the SDK makes is throttled until the control plane has answered one 503.
      board.arm({ dependency: 'table', operation: 'UpdateItem', fault: 'throttle', times: 20 });
      const ticking = api.call('POST', '/_local/fleet/tick', { body: { dispatcherIds: [dispatcherId] } });
      await vi.waitFor(
        () =>
          expect(warn.mock.calls.map((call) => call[0])).toContain(
            'retryable table fault: answered 503 temporarily_busy',
          ),
        { timeout: 20_000, interval: 50 },
      );
      board.disarm();
      const [dispatcher] = (await ticking).json.dispatchers;
      expect(dispatcher).toMatchObject({ dispatcherId, activeRuns: 1, lastError: null });
    } finally {
      board.disarm();
      warn.mockRestore();
    }
    const stack = await api.call('GET', '/v1/stacks/primary', { token: tenant.sessionToken });
    expect(stack.json).toMatchObject({ activeRuns: 1, health: 'healthy' });
  }, 60_000);
});
