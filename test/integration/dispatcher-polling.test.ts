import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HEARTBEAT_SECONDS,
  POLL_IDLE_MAX_SECONDS,
  POLL_IDLE_MIN_SECONDS,
  POLL_SOON_SECONDS,
  STALE_AFTER_SECONDS,
} from '#core/dispatcher.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { gatewayForFile } from '../support/file-gateway.ts';

/**
 * Polling that fits a fleet (issue 23): the desired-state answer says when to poll next, the 304
 * path reads the Stack only and writes nothing, and a Dispatcher that stops its heartbeat shows as
 * stale; against DynamoDB Local, through the API.
 */

const { api } = gatewayForFile({ processor: true });

const MIDDLEWARE = 'pollingTableCalls';
afterEach(() => {
  db().middlewareStack.remove(MIDDLEWARE);
});

/** Records every table call from now on: its command and the item key it names, if one. */
const recordTableCalls = () => {
  const calls: { command: string; key?: string; consistent?: boolean }[] = [];
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { PK: string; SK: string }; ConsistentRead?: boolean };
      calls.push({
        command: context.commandName ?? '?',
        ...(input.Key ? { key: `${input.Key.PK}|${input.Key.SK}` } : {}),
        consistent: input.ConsistentRead === true,
      });
      return next(args);
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
  return calls;
};

const dispatcherOf = async () => {
  const tenant = await api.subscribe({ plan: 'standard' });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  expect(issued.status).toBe(201);
  const credential = (issued.json as { credential: string }).credential;
  const as = (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => api.call(method, path, { token: credential, ...options });
  return { tenant, as };
};

const storedStack = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.stack(tenantId, 'primary'), ConsistentRead: true }),
    )
  ).Item;

describe('when to poll next', () => {
  it('soon while the desired version is not applied, long and jittered once it is', async () => {
    const { as } = await dispatcherOf();
    const first = await as('GET', '/v1/dispatcher/desired-state');
    expect(first.json.poll_after_seconds).toBe(POLL_SOON_SECONDS);
    expect(first.headers['x-poll-after-seconds']).toBe(String(POLL_SOON_SECONDS));
    expect(first.json.heartbeat_seconds).toBe(HEARTBEAT_SECONDS);
    const report = await as('PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'healthy', activeRuns: 0 },
    });
    const idle = report.json.poll_after_seconds as number;
    expect(idle).toBeGreaterThanOrEqual(POLL_IDLE_MIN_SECONDS);
    expect(idle).toBeLessThanOrEqual(POLL_IDLE_MAX_SECONDS);
    const notModified = await as('GET', '/v1/dispatcher/desired-state', {
      headers: { 'if-none-match': '"v1"' },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['x-poll-after-seconds']).toBe(String(idle));
  });
});

describe('the 304 path', () => {
  it('reads the Stack item only (and the credential, in the authorizer), both eventually consistent (half the units), and writes nothing', async () => {
    const { tenant, as } = await dispatcherOf();
    await as('PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'healthy', activeRuns: 0 },
    });
    const before = await storedStack(tenant.tenantId);
    api.clock.advance(600);
    const calls = recordTableCalls();
    const answer = await as('GET', '/v1/dispatcher/desired-state', { headers: { 'if-none-match': '"v1"' } });
    db().middlewareStack.remove(MIDDLEWARE);
    expect(answer.status).toBe(304);
    expect(calls.filter((call) => !/^(Get|Query|BatchGet|Scan)/.test(call.command))).toEqual([]);
    const stackKey = `${keys.stack(tenant.tenantId, 'primary').PK}|${keys.stack(tenant.tenantId, 'primary').SK}`;
    const reads = calls.filter((call) => call.key !== undefined && !call.key.startsWith('DISPATCHER#'));
    expect(reads.map((call) => [call.command, call.key])).toEqual([['GetItemCommand', stackKey]]);
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.consistent)).toEqual([false, false]);
    expect(await storedStack(tenant.tenantId)).toEqual(before);
  });
});

describe('the heartbeat', () => {
  it('a Stack whose Dispatcher misses two heartbeats shows as stale; its next report clears that', async () => {
    const { tenant, as } = await dispatcherOf();
    const view = async () =>
      (await api.call('GET', '/v1/stacks/primary', { token: tenant.sessionToken })).json as {
        reportStale: boolean;
        lastReportAt: string | null;
      };
    // Never reported: being created, not stale.
    expect((await view()).reportStale).toBe(false);
    await as('PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'healthy', activeRuns: 0 },
    });
    // (The local clock also moves with real time: a minute's margin either side.)
    api.clock.advance(STALE_AFTER_SECONDS - 60);
    expect((await view()).reportStale).toBe(false);
    api.clock.advance(120);
    expect((await view()).reportStale).toBe(true);
    // The heartbeat (an unchanged report) is stored with its time: the Stack is current again.
    const sentAt = api.clock.now().getTime();
    await as('PUT', '/v1/dispatcher/observed-state', {
      body: { appliedVersion: 1, health: 'healthy', activeRuns: 0 },
    });
    const current = await view();
    expect(current.reportStale).toBe(false);
    expect(Date.parse(current.lastReportAt ?? '')).toBeGreaterThanOrEqual(sentAt);
  });
});
