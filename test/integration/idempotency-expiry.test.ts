import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { PlanValue } from '#core/plans.ts';
import { API_FUNCTION_TIMEOUT_SECONDS } from '#ports/config.ts';
import { db, tableName } from '#store/client.ts';
import { claimIdempotencyKey, recordIdempotencyPlan } from '#store/idempotency.ts';
import { keys } from '#store/keys.ts';
import { listStacks } from '#store/stacks.ts';
import { confirmFingerprint } from '../../functions/plan-changes/confirm.ts';
import { addStackFingerprint } from '../../functions/stacks/add-stack.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { processorView } from '../support/processor-view.ts';
import { partitionItems } from '../support/stored.ts';

/**
 * An Idempotency-Key claim whose request never finished (its Lambda died after claiming it) is held
 * for the function's timeout only, as Powertools' idempotency does with its in-progress expiry:
 * before that the same request is refused as in progress, after it (on the Clock) the next one
 * takes the claim over and carries on; a finished request is replayed. Both keyed routes: add a
 * Stack and confirm a Plan Change, through the local API Gateway, DynamoDB Local, the processor
 * emulator and the local Step Functions.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { subscriptionOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

const add = (tenant: Tenant, plan: string, key: string) =>
  api.call('POST', '/v1/stacks', {
    token: tenant.sessionToken,
    body: { plan },
    headers: { 'idempotency-key': key },
  });
const confirm = (tenant: Tenant, plan: string, key: string) =>
  api.call('POST', '/v1/stacks/primary/plan-changes', {
    token: tenant.sessionToken,
    body: { plan },
    headers: { 'idempotency-key': key },
  });

/** Every item change sent for the tenant's subscription. */
const itemChanges = (tenantId: string) =>
  emulator.calls.filter(
    (c) =>
      c.method === 'POST' && c.path === `/v1/subscriptions/${subscriptionOf(tenantId).id}` && c.params.items,
  );
const planChangesOf = (tenantId: string) => partitionItems(keys.tenant(tenantId).PK, 'PLANCHANGE#');
const claimRecord = async (tenantId: string, key: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.idempotency(tenantId, key), ConsistentRead: true }),
    )
  ).Item;

/** A request that claimed `key` and died at once: nothing but its claim was written. */
const diedAfterClaiming = async (tenantId: string, key: string, fingerprint: string) => {
  const claimed = await claimIdempotencyKey(tenantId, key, fingerprint, api.clock.now());
  if (!claimed.claimed) throw new Error('the key was claimed before');
  return claimed.claim;
};

describe('add a Stack: a claim left in progress', () => {
  it('is refused as in progress until the function would have timed out, then taken over; the finished request replays', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const plan: PlanValue = 'pro';
    await diedAfterClaiming(tenant.tenantId, 'add-died', addStackFingerprint(plan));

    const refused = await add(tenant, plan, 'add-died');
    expect([refused.status, refused.json.error.code]).toEqual([409, 'request_in_progress']);
    api.clock.advance(API_FUNCTION_TIMEOUT_SECONDS - 2);
    const stillRefused = await add(tenant, plan, 'add-died');
    expect([stillRefused.status, stillRefused.json.error.code]).toEqual([409, 'request_in_progress']);
    expect(await listStacks(tenant.tenantId)).toHaveLength(1);
    expect(itemChanges(tenant.tenantId)).toHaveLength(0);

    // Past the function's timeout on the Clock: the claim is the next request's.
    api.clock.advance(3);
    const added = await add(tenant, plan, 'add-died');
    expect(added.status).toBe(201);
    expect(await listStacks(tenant.tenantId)).toHaveLength(2);
    expect(itemChanges(tenant.tenantId)).toHaveLength(1);
    expect(await claimRecord(tenant.tenantId, 'add-died')).toMatchObject({ state: 'done', status: 201 });

    // Finished: the same request replays its answer, adds and charges nothing more.
    api.clock.advance(3_600);
    const replayed = await add(tenant, plan, 'add-died');
    expect(replayed.status).toBe(201);
    expect(replayed.json.stackId).toBe(added.json.stackId);
    expect(await listStacks(tenant.tenantId)).toHaveLength(2);
    expect(itemChanges(tenant.tenantId)).toHaveLength(1);
    const reused = await add(tenant, 'standard', 'add-died');
    expect([reused.status, reused.json.error.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('a request that died after deciding: refused while it could still run, then carried on with its decision (its Stack id)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const claim = await diedAfterClaiming(tenant.tenantId, 'add-decided', addStackFingerprint('standard'));
    await recordIdempotencyPlan(claim, {
      stackId: 'stk_diedafter01',
      subscriptionId: subscriptionOf(tenant.tenantId).id,
    });
    const refused = await add(tenant, 'standard', 'add-decided');
    expect([refused.status, refused.json.error.code]).toEqual([409, 'request_in_progress']);
    api.clock.advance(API_FUNCTION_TIMEOUT_SECONDS + 1);
    const added = await add(tenant, 'standard', 'add-decided');
    expect(added.status).toBe(201);
    expect(added.json.stackId).toBe('stk_diedafter01');
    expect(itemChanges(tenant.tenantId).map((c) => c.idempotencyKey)).toEqual([
      `add-stack:${tenant.tenantId}:stk_diedafter01`,
    ]);
  });
});

describe('confirm a Plan Change: a claim left in progress', () => {
  it('is refused as in progress until the function would have timed out, then taken over; the finished request replays', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    await diedAfterClaiming(tenant.tenantId, 'confirm-died', confirmFingerprint('primary', 'pro'));

    const refused = await confirm(tenant, 'pro', 'confirm-died');
    expect([refused.status, refused.json.error.code]).toEqual([409, 'request_in_progress']);
    api.clock.advance(API_FUNCTION_TIMEOUT_SECONDS - 2);
    const stillRefused = await confirm(tenant, 'pro', 'confirm-died');
    expect([stillRefused.status, stillRefused.json.error.code]).toEqual([409, 'request_in_progress']);
    expect(await planChangesOf(tenant.tenantId)).toHaveLength(0);

    api.clock.advance(3);
    const confirmed = await confirm(tenant, 'pro', 'confirm-died');
    expect(confirmed.status).toBe(202);
    expect(await planChangesOf(tenant.tenantId)).toHaveLength(1);
    expect(await claimRecord(tenant.tenantId, 'confirm-died')).toMatchObject({ state: 'done', status: 202 });

    api.clock.advance(3_600);
    const replayed = await confirm(tenant, 'pro', 'confirm-died');
    expect(replayed.status).toBe(202);
    expect(replayed.json.changeId).toBe(confirmed.json.changeId);
    expect(await planChangesOf(tenant.tenantId)).toHaveLength(1);
    const reused = await confirm(tenant, 'standard', 'confirm-died');
    expect([reused.status, reused.json.error.code]).toEqual([409, 'idempotency_key_reused']);
  });
});
