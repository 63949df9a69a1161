import { afterAll, describe, expect, it } from 'vitest';
import { setCapacityTotal } from '#store/capacity.ts';
import { getCredential } from '#store/credentials.ts';
import { getExport } from '#store/exports.ts';
import { keys } from '#store/keys.ts';
import { getPlanChange } from '#store/plan-changes.ts';
import { accountEmail } from '../../lib/local/code-host.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo, uniqueRegion } from '../support/gateway.ts';
import { planChangeExport } from '../support/plan-change-world.ts';
import { partitionItems } from '../support/stored.ts';

/**
 * An operator's words never reach a tenant (issue 20, item 1): a Dispatcher that reports a failure
 * in its own words, full of storage locators, provider identifiers and an operator's identity,
 * through the reference Dispatcher. Every answer the tenant can read (the Plan Change record, the
 * list, the audit export, the rolled-back email in the outbox and in the SES stand-in, the export
 * status and list, the Credential list with its Guide selection) carries our reason code and text
 * instead; the Dispatcher's words are kept for operators only.
 */

const LEAK = 'disk full at s3://acme-backups-prod/x by ops-oncall-7 via arn:aws:iam::123456789012:role/x';
const LOCATORS = /s3:\/\/|arn:|ops-oncall|acme-backups-prod|123456789012/;

const { api } = gatewayForFile({ processor: true, stepFunctions: { waitMs: 10 } });
afterAll(() => api.fleet.removeTemporaryData());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A paying tenant whose first Stack has a running reference Dispatcher. */
const payingWithDispatcher = async () => {
  const region = uniqueRegion();
  for (const plan of ['standard', 'plus', 'pro'] as const)
    await setCapacityTotal({ region, location: `${region}-a`, plan, total: 3 }, api.clock.now());
  const tenant = await api.subscribe({ plan: 'plus', region });
  const issued = await api.call('POST', '/v1/stacks/primary/dispatcher-credential', {
    token: tenant.sessionToken,
  });
  const started = await api.call('POST', '/_local/fleet/dispatchers', {
    body: { credential: issued.json.credential, location: `${region}-a` },
  });
  expect(started.status).toBe(201);
  return { ...tenant, dispatcherId: started.json.dispatcherId as string };
};
type Paying = Awaited<ReturnType<typeof payingWithDispatcher>>;

/** Every tenant-visible answer, as text. */
const asTenant = async (tenant: Paying, method: string, url: string, body?: unknown) => {
  const response = await api.call(method, url, {
    token: tenant.sessionToken,
    ...(body === undefined ? {} : { body }),
  });
  return { ...response, text: JSON.stringify(response.json ?? null) };
};

const expectNoLocators = (seen: Record<string, string>) => {
  for (const [where, text] of Object.entries(seen))
    expect(text, `${where} carries the Dispatcher's words: ${text}`).not.toMatch(LOCATORS);
};

describe('a Plan Change step that fails in the Dispatcher’s words', () => {
  for (const [step, code] of [
    ['backup', 'backup_failed'],
    ['switch', 'switch_failed'],
    ['verify', 'verify_failed'],
  ] as const)
    it(`${step}: the record, the list, the audit export and the email say our reason (${code}); operators keep the words`, async () => {
      const tenant = await payingWithDispatcher();
      const fault = await api.call('POST', '/_local/fleet/faults', {
        body: { dispatcherId: tenant.dispatcherId, step, kind: 'fail', reason: LEAK },
      });
      expect(fault.status).toBe(200);
      const confirmed = await asTenant(tenant, 'POST', '/v1/stacks/primary/plan-changes', { plan: 'pro' });
      expect(confirmed.status).toBe(202);
      const changeId = confirmed.json.changeId as string;
      let record = await asTenant(tenant, 'GET', `/v1/plan-changes/${changeId}`);
      for (let round = 0; round < 300 && record.json.status !== 'rolled_back'; round++) {
        await api.fleet.tick();
        await sleep(15);
        record = await asTenant(tenant, 'GET', `/v1/plan-changes/${changeId}`);
      }
      expect(record.json.status).toBe('rolled_back');
      const list = await asTenant(tenant, 'GET', '/v1/plan-changes');
      const exported = await planChangeExport(api, tenant);
      expect(exported.status).toBe(200);
      const outbox = await partitionItems(keys.outbox(`plan-change:${changeId}:rolled_back`).PK);
      expect(outbox).toHaveLength(1);
      await api.sweep();
      const mails = (await emailsTo(accountEmail(tenant.login))).filter((mail) =>
        mail.subject.includes('rolled back'),
      );
      expect(mails).toHaveLength(1);
      expectNoLocators({
        record: record.text,
        list: list.text,
        export: exported.body.toString('utf8'),
        outbox: JSON.stringify(outbox),
        email: JSON.stringify(mails),
      });

      // What the tenant sees instead: our code and our words (what failed, billing unchanged, what next).
      expect(record.json.reasonCode).toBe(code);
      expect(record.json.outcome).toMatch(/billing is unchanged/i);
      expect(list.json.planChanges[0]).toMatchObject({ changeId, reasonCode: code });
      expect(JSON.parse(exported.body.toString('utf8').trim())).toMatchObject({ changeId, reasonCode: code });

      // The Dispatcher's words stay with operators, in an attribute no view reads.
      expect((await getPlanChange(tenant.tenantId, changeId))?.dispatcherReason).toBe(LEAK);
    });
});

describe('an export the Dispatcher fails in its own words', () => {
  it('the export status and list say our reason code and text', async () => {
    const tenant = await payingWithDispatcher();
    const dispatcher = api.fleet.get(tenant.dispatcherId);
    if (!dispatcher) throw new Error('no dispatcher');
    dispatcher.exportFault = LEAK;
    const started = await asTenant(tenant, 'POST', '/v1/stacks/primary/exports');
    expect(started.status).toBe(202);
    const exportId = started.json.exportId as string;
    await api.fleet.tick();
    await dispatcher.exportDone(exportId);
    const status = await asTenant(tenant, 'GET', `/v1/stacks/primary/exports/${exportId}`);
    const list = await asTenant(tenant, 'GET', '/v1/stacks/primary/exports');
    const download = await asTenant(tenant, 'POST', `/v1/stacks/primary/exports/${exportId}/download`);
    expect(download.status).toBe(409);
    expectNoLocators({ status: status.text, list: list.text, download: download.text });
    expect(status.json).toMatchObject({ status: 'failed', failureCode: 'build_failed' });
    expect(status.json.failureReason).toMatch(/start a new export/i);
    expect((await getExport(tenant.tenantId, 'primary', exportId))?.dispatcherReason).toBe(LEAK);
  });
});

describe('a Credential the Dispatcher finds invalid in its own words', () => {
  it('the Credential list and its Guide selection say our reason code and text', async () => {
    const tenant = await payingWithDispatcher();
    const provisioned = await asTenant(tenant, 'POST', '/v1/credentials/work-key', {
      provider: 'provider-c',
      kind: 'api_key',
      material: 'sk-test-dispatcher-words',
    });
    expect(provisioned.status).toBe(201);
    // Selected while its validation is pending: the invalid verdict clears the selection.
    expect(
      (await asTenant(tenant, 'PUT', '/v1/stacks/primary/guide-credential', { name: 'work-key' })).status,
    ).toBe(200);
    const answered = await api.call(
      'POST',
      `/_local/fleet/dispatchers/${tenant.dispatcherId}/validation-answers`,
      { body: { name: 'work-key', outcome: 'invalid', reason: LEAK } },
    );
    expect(answered.status).toBe(200);
    await api.fleet.tick();
    const listed = await asTenant(tenant, 'GET', '/v1/credentials');
    const stacks = await asTenant(tenant, 'GET', '/v1/stacks');
    expectNoLocators({ credentials: listed.text, stacks: stacks.text });
    expect(listed.json.credentials[0]).toMatchObject({
      name: 'work-key',
      validation: { state: 'invalid', reasonCode: 'provider_refused' },
      usable: false,
      unusableReason: 'validation_failed',
    });
    expect(listed.json.credentials[0].validation.reason).toMatch(/provision it again/i);
    expect(listed.json.guide).toMatchObject({
      name: null,
      cleared: { name: 'work-key', reason: 'validation_failed' },
    });
    expect((await getCredential(tenant.tenantId, 'primary', 'work-key'))?.validation.dispatcherReason).toBe(
      LEAK,
    );
  });
});
