import { afterEach, describe, expect, it } from 'vitest';
import { disarmFaults, faultStatus, ISSUE_FAULT_DEPENDENCIES } from '../support/faults.ts';
import { eventually, localClient, sharedCloud } from '../support/local-cloud.ts';

/**
 * Faults on demand on the shared `npm start` (issue 25): `/_local/faults` arms a fault of one
 * dependency, the call that meets it fails where the real service would (the processor emulator's
 * front, the fault proxy in front of DynamoDB Local), our code answers as it does for that fault,
 * and the board counts what fired. Every test disarms what it armed.
 */

const cloud = localClient(sharedCloud);
const { call, ok, as } = cloud;
const url = () => sharedCloud().url;

afterEach(async () => {
  await disarmFaults(url());
});

describe('/_local/faults', () => {
  it('shows the catalog, what is armed and what fired', async () => {
    const shown = ok(await call('GET', '/_local/faults')).body;
    expect(Object.keys(shown.catalog).sort()).toEqual(ISSUE_FAULT_DEPENDENCIES);
    expect(shown.catalog.table.faults).toEqual(['throttle', 'transaction-conflict']);
    expect(shown.armed).toEqual([]);
    expect(typeof shown.total).toBe('number');
  });

  it('refuses what is not in the catalog, saying which field, and arms nothing', async () => {
    const wrongFault = await call('POST', '/_local/faults', {
      body: { dependency: 'mail', fault: 'throttle', times: 1 },
    });
    expect(wrongFault.status).toBe(400);
    expect(wrongFault.body.error).toMatchObject({ field: 'fault' });
    expect(wrongFault.body.error.message).toContain('refused, timeout');
    const neither = await call('POST', '/_local/faults', { body: { dependency: 'mail', fault: 'refused' } });
    expect(neither.status).toBe(400);
    const share = await call('POST', '/_local/faults', {
      body: { dependency: 'mail', fault: 'refused', share: 1.5 },
    });
    expect(share.status).toBe(400);
    expect((await faultStatus(url())).armed).toEqual([]);
  });

  it('a processor fault on checkouts fails the checkout as unavailable; the next one goes through', async () => {
    const tenant = await cloud.newTenant('faults-checkout');
    const before = (await faultStatus(url())).fired['processor.create_checkout_session:500'] ?? 0;
    // More 500s than the SDK retries within the checkout's budget.
    const armed = ok(
      await call('POST', '/_local/faults', {
        body: { dependency: 'processor', operation: 'create_checkout_session', fault: '500', times: 5 },
      }),
      201,
    ).body;
    expect(armed).toMatchObject({
      dependency: 'processor',
      operation: 'create_checkout_session',
      remaining: 5,
    });
    const failed = await as(tenant, 'POST', '/v1/billing/checkout', { plan: 'standard' });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('processor_unavailable');
    const status = await faultStatus(url());
    const fired = (status.fired['processor.create_checkout_session:500'] ?? 0) - before;
    expect(fired).toBeGreaterThanOrEqual(1);
    await disarmFaults(url());
    const retried = await as(tenant, 'POST', '/v1/billing/checkout', { plan: 'standard' });
    expect(retried.status).toBe(200);
    expect(retried.body.url).toContain('/c/pay/cs_');
  });

  it("a throttled table call is retried by the SDK: the tenant's read still answers, and the fault is counted", async () => {
    const tenant = await cloud.newTenant('faults-table');
    const before = (await faultStatus(url())).byFault['table:throttle'] ?? 0;
    ok(
      await call('POST', '/_local/faults', {
        body: { dependency: 'table', operation: 'GetItem', fault: 'throttle', times: 1 },
      }),
      201,
    );
    expect((await as(tenant, 'GET', '/v1/billing/status')).status).toBe(200);
    const after = await faultStatus(url());
    expect((after.byFault['table:throttle'] ?? 0) - before).toBe(1);
    expect(after.armed).toEqual([]);
  });

  it('a refused workflow start still confirms (202), the retry with the same key starts the Plan Change; its refused email is sent later, once', async () => {
    const tenant = await cloud.payingTenant('faults-workflow', 'plus');
    const before = (await faultStatus(url())).fired['workflow.start:refused'] ?? 0;
    const mailBefore = (await faultStatus(url())).fired['mail.send:refused'] ?? 0;
    ok(
      await call('POST', '/_local/faults', { body: { dependency: 'workflow', fault: 'refused', times: 1 } }),
      201,
    );
    const key = `faults-${tenant.login}`;
    const confirm = () =>
      as(
        tenant,
        'POST',
        `/v1/stacks/${tenant.stackId}/plan-changes`,
        { plan: 'pro' },
        { 'idempotency-key': key },
      );
    // Recorded before the start: the tenant is told it is confirmed (the sweep would start it later).
    const refused = await confirm();
    expect(refused.status).toBe(202);
    expect((await faultStatus(url())).fired['workflow.start:refused'] ?? 0).toBe(before + 1);
    const retried = await confirm();
    expect(retried.status).toBe(202);
    const changeId = retried.body.changeId as string;
    expect(changeId).toBe(refused.body.changeId);
    // The email that says the change is done is refused once by SES.
    ok(
      await call('POST', '/_local/faults', { body: { dependency: 'mail', fault: 'refused', times: 1 } }),
      201,
    );
    // The execution runs: the change leaves waiting_for_work as the Dispatcher works.
    await eventually(
      async () => {
        await cloud.tick(tenant.dispatcherId);
        await cloud.sweep();
        return (await as(tenant, 'GET', `/v1/plan-changes/${changeId}`)).body.status as string;
      },
      (status) => status === 'completed',
      { what: `Plan Change ${changeId} completed`, timeoutMs: 50_000 },
    );
    // A refused send is tried again after its backoff (a minute on the Clock, then doubling).
    await cloud.advance(61);
    const mail = await eventually(
      async () => {
        await cloud.sweep();
        return cloud.mailTo(tenant.email);
      },
      (emails) => emails.some((m) => m.subject.includes('now runs on the')),
      { what: `the Plan Change email to ${tenant.email}` },
    );
    expect((await faultStatus(url())).fired['mail.send:refused'] ?? 0).toBe(mailBefore + 1);
    expect(mail.filter((m) => m.subject.includes('now runs on the'))).toHaveLength(1);
  });

  it('DELETE disarms one dependency and keeps the counts', async () => {
    ok(
      await call('POST', '/_local/faults', { body: { dependency: 'queue', fault: 'refused', share: 0.5 } }),
      201,
    );
    ok(
      await call('POST', '/_local/faults', { body: { dependency: 'mail', fault: 'timeout', times: 2 } }),
      201,
    );
    const answer = ok(await call('DELETE', '/_local/faults?dependency=queue')).body;
    expect(answer.disarmed).toBe(1);
    expect(answer.armed).toEqual([
      expect.objectContaining({ dependency: 'mail', fault: 'timeout', remaining: 2 }),
    ]);
    expect((await call('DELETE', '/_local/faults?dependency=nope')).status).toBe(400);
  });
});
