import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { keys } from '#store/keys.ts';
import { getTenant } from '#store/tenants.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { type CallResult, regionWithPlaces, type TestControlPlane } from '../support/gateway.ts';
import { cancelInPortal, TEST_CARDS } from '../support/hosted-pages.ts';
import { planChangeWorld } from '../support/plan-change-world.ts';
import { processorView, withFaults } from '../support/processor-view.ts';
import { partitionItems } from '../support/stored.ts';

/**
 * A request sent with an Idempotency-Key and refused leaves no claim behind (issue 35, item 7):
 * the same key sent again at once gets the refusal's own answer, never 409 `request_in_progress`,
 * and the key stays free for the request the tenant makes once the cause is gone. Every refusal
 * path of the two keyed routes, confirm a Plan Change and add a Stack, through the local API
 * Gateway, DynamoDB Local, the processor emulator and the local Step Functions.
 */

const { api, emulator } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
const { asTenant } = planChangeWorld(api);
const { subscriptionOf } = processorView(emulator);

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const confirm = (tenant: Tenant, plan: string, key: string, stackId = 'primary') =>
  asTenant(tenant, 'POST', `/v1/stacks/${stackId}/plan-changes`, {
    body: { plan },
    headers: { 'idempotency-key': key },
  });
const add = (tenant: Tenant, plan: string, key: string) =>
  asTenant(tenant, 'POST', '/v1/stacks', { body: { plan }, headers: { 'idempotency-key': key } });

let keyCount = 0;
/** A key no request of this file used before (and no prefix of another). */
const newKey = () => `key-${++keyCount}-end`;

/** The claim stored for the tenant's key, if any. */
const claimOf = async (tenantId: string, key: string) => {
  const { PK, SK } = keys.idempotency(tenantId, key);
  return partitionItems(PK, SK);
};

/**
 * Sends a keyed request twice, at once: both answers are `expected` (the refusal's status and
 * code; a claim left behind would answer the second 409 `request_in_progress`), and no claim of
 * the key is stored after them.
 */
const refusedTwice = async (
  tenant: Tenant,
  send: (key: string) => Promise<CallResult>,
  expected: [number, string],
): Promise<string> => {
  const key = newKey();
  for (const attempt of ['first', 'again']) {
    const answer = await send(key);
    expect([answer.status, answer.json.error?.code], attempt).toEqual(expected);
  }
  expect(await claimOf(tenant.tenantId, key)).toEqual([]);
  return key;
};

/** Both keyed routes refused with `code`, each twice with its key. */
const bothRefusedTwice = async (tenant: Tenant, code: string) => {
  await refusedTwice(tenant, (key) => confirm(tenant, 'pro', key), [409, code]);
  await refusedTwice(tenant, (key) => add(tenant, 'standard', key), [409, code]);
};

describe('a confirmation refused with an Idempotency-Key', () => {
  it('for the Plan it is on (plan_unchanged): refused again, not in progress; the key then confirms another Plan', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const key = await refusedTwice(tenant, (k) => confirm(tenant, 'plus', k), [409, 'plan_unchanged']);
    const confirmed = await confirm(tenant, 'pro', key);
    expect(confirmed.status).toBe(202);
    expect((await confirm(tenant, 'pro', key)).json.changeId).toBe(confirmed.json.changeId);
  }, 60_000);

  it('while another change is under way (operation_in_progress)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    expect((await confirm(tenant, 'pro', newKey())).status).toBe(202);
    await refusedTwice(tenant, (key) => confirm(tenant, 'standard', key), [409, 'operation_in_progress']);
  });

  it('for a Stack that does not exist (404)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const answer = await confirm(tenant, 'pro', newKey(), 'stk_none');
    expect(answer.status).toBe(404);
    await refusedTwice(tenant, (key) => confirm(tenant, 'pro', key, 'stk_none'), [
      404,
      answer.json.error.code,
    ]);
  });
});

describe('an added Stack refused with an Idempotency-Key', () => {
  it('before the first payment (no_subscription)', async () => {
    const tenant = await api.readyTenant();
    await refusedTwice(tenant, (key) => add(tenant, 'plus', key), [409, 'no_subscription']);
  });

  it('at the Stack Cap (stack_cap_reached)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    process.env.STACK_CAP = '1';
    try {
      await refusedTwice(tenant, (key) => add(tenant, 'plus', key), [409, 'stack_cap_reached']);
    } finally {
      delete process.env.STACK_CAP;
    }
  });

  it('where no place is free (no_capacity)', async () => {
    const region = await regionWithPlaces(api.clock, { a: { plus: 2, pro: 0 } });
    const tenant = await api.subscribe({ plan: 'plus', region });
    await refusedTwice(tenant, (key) => add(tenant, 'pro', key), [409, 'no_capacity']);
  });

  it('when the processor refuses the item change (processor_error): nothing stays, the key is free', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const key = await withFaults(
      emulator,
      [
        {
          method: 'POST',
          keyPrefix: `add-stack:${tenant.tenantId}:`,
          kind: 'refuse',
          times: Number.POSITIVE_INFINITY,
        },
      ],
      () => refusedTwice(tenant, (k) => add(tenant, 'plus', k), [502, 'processor_error']),
    );
    const added = await add(tenant, 'plus', key);
    expect(added.status).toBe(201);
  });
});

describe('both keyed routes refused with an Idempotency-Key', () => {
  it('while the processor does not answer (processor_unavailable)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const subscriptionId = (await getBilling(tenant.tenantId))?.subscriptionId as string;
    await withFaults(
      emulator,
      [
        {
          method: 'GET',
          path: `/v1/subscriptions/${subscriptionId}`,
          kind: 'unavailable',
          times: Number.POSITIVE_INFINITY,
        },
      ],
      async () => {
        await refusedTwice(tenant, (key) => confirm(tenant, 'pro', key), [502, 'processor_unavailable']);
        await refusedTwice(tenant, (key) => add(tenant, 'standard', key), [502, 'processor_unavailable']);
      },
    );
  });

  it('while the processor does not report the subscription active (subscription_not_active)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    subscriptionOf(tenant.tenantId).status = 'past_due';
    await bothRefusedTwice(tenant, 'subscription_not_active');
  });

  it('once a cancellation is scheduled in the portal (cancellation_scheduled)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const portal = await asTenant(tenant, 'POST', '/v1/billing/portal');
    expect((await cancelInPortal(portal.json.url)).status).toBeLessThan(400);
    await bothRefusedTwice(tenant, 'cancellation_scheduled');
  });

  it('once the account is closing (account_closing)', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    emulator.route('DELETE', `/v1/subscriptions/${subscriptionOf(tenant.tenantId).id}`, {});
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    await bothRefusedTwice(tenant, 'account_closing');
  });

  it('while billing is overdue (billing_overdue)', async () => {
    const tenant = await api.subscribe({ plan: 'plus', card: TEST_CARDS.failsLater });
    const end = subscriptionOf(tenant.tenantId).currentPeriodEnd;
    api.clock.advance(end - Math.floor(api.clock.now().getTime() / 1000) + 60);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('past-due');
    await bothRefusedTwice(tenant, 'billing_overdue');
    // A renewal, a sweep and four refused requests: over the layer's 30 s when the machine is busy.
  }, 60_000);
});
