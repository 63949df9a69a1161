import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Refusal } from '#core/refusal.ts';
import { statusOf as httpStatusOf } from '#http/refusal-status.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listStacks } from '#store/stacks.ts';
import { getTenant } from '#store/tenants.ts';
import { handler as postOpsRefund } from '../../functions/api/post-ops-refund.ts';
import { grantMoneyBack, moneyBackEmailKey } from '../../functions/billing/money-back.ts';
import { processorEnvironment } from '../../lib/local/processor/local.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo, type TestControlPlane } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { adminEmail, adminRequest, invoicePendingNow, refusalOf } from '../support/money-back.ts';
import { opsDataFolder, runOps } from '../support/ops-cli.ts';
import { processorView } from '../support/processor-view.ts';
import { partitionItems } from '../support/stored.ts';

/**
 * The money-back refund, end to end: an operator grants it (the use case, the ops CLI, the
 * IAM-only route) after the tenant's email to support; the processor emulator shows what was
 * refunded and cancelled; the sweep moves the tenant to decommissioning; the tenant sees it.
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf, chargesOf } = processorView(emulator);

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;
type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;

const refundsOf = (intentId: string) =>
  Object.values(emulator.state.refunds).filter((r) => r.paymentIntent === intentId);
const refundPosts = (customer: string) => {
  const intents = new Set(chargesOf(customer).map((p) => p.id));
  return emulator.calls.filter(
    (c) => c.method === 'POST' && c.path === '/v1/refunds' && intents.has(String(c.params.payment_intent)),
  );
};

const statusOf = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
};

/**
 * A second charge in the window: a Stack added (its proration pending at the processor), and the
 * processor invoicing and charging that proration at once, as an "invoice now" would.
 */
const addStackAndChargeProration = async (tenant: Tenant) => {
  const { sessionToken } = await api.signIn(tenant.login);
  const added = await api.call('POST', '/v1/stacks', { token: sessionToken, body: { plan: 'standard' } });
  expect(added.status).toBe(201);
  return invoicePendingNow(emulator, tenant.tenantId);
};

/** The stored tenant item as is (the grant record included). */
const tenantItem = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }),
    )
  ).Item;

describe('a money-back refund granted in the window', () => {
  it('requested on day 13: every payment in the window refunded once, cancelled at once, decommissioning with its Stacks, one email, shown in the status', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const firstInvoice = Object.values(emulator.state.invoices).find((i) => i.customer === customer);
    const firstPaidAt = new Date((firstInvoice?.paidAt ?? 0) * 1000).toISOString();
    const windowEndsAt = new Date(Date.parse(firstPaidAt) + 14 * DAY_MS).toISOString();

    // Before: where to write, until when, and the reminder.
    expect((await statusOf(tenant)).moneyBack).toEqual({
      supportEmail: 'support@stack-control-plane.test',
      windowEndsAt,
      available: true,
      used: null,
      usedByEarlierAccount: null,
      reminder:
        'Export your data first: the Stacks are torn down after the export window once the refund is granted.',
    });

    api.clock.advance(3 * DAY_S);
    const proration = await addStackAndChargeProration(tenant);
    await api.sweep();
    expect(await listStacks(tenant.tenantId)).toHaveLength(2);

    api.clock.advance(10 * DAY_S);
    const now = api.clock.now();
    const charges = chargesOf(customer);
    expect(charges).toHaveLength(2);
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: now,
      now,
    });
    expect(grant).toMatchObject({
      tenantId: tenant.tenantId,
      slug: tenant.slug,
      requestedAt: now.toISOString(),
      grantedAt: now.toISOString(),
      refunds: 2,
      refundedAmount: charges.reduce((sum, p) => sum + p.amount, 0),
      currency: 'usd',
      window: { from: firstPaidAt, until: windowEndsAt },
      continued: false,
    });
    expect(grant.refundedAmount).toBeGreaterThan(proration.total);

    // At the processor: one refund per payment, keyed per payment; cancelled now, no proration, nothing open.
    for (const payment of charges) {
      expect(refundsOf(payment.id)).toHaveLength(1);
      expect(refundsOf(payment.id)[0]?.amount).toBe(payment.amount);
    }
    expect(
      refundPosts(customer)
        .map((c) => c.idempotencyKey)
        .sort(),
    ).toEqual(charges.map((p) => `refund:${p.id}`).sort());
    const subscription = subscriptionOf(tenant.tenantId);
    expect(subscription.status).toBe('canceled');
    expect(subscription.cancelAtPeriodEnd).toBe(false);
    const cancel = emulator.calls.find(
      (c) => c.method === 'DELETE' && c.path === `/v1/subscriptions/${subscription.id}`,
    );
    expect(cancel?.params).toMatchObject({
      prorate: 'false',
      invoice_now: 'false',
      cancellation_details: { comment: 'stack-control-plane:refund_granted' },
    });
    expect(
      Object.values(emulator.state.invoices).filter((i) => i.customer === customer && i.status === 'open'),
    ).toEqual([]);

    // The grant record on the tenant, the email queued with it.
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toEqual({
      requestedAt: now.toISOString(),
      startedAt: now.toISOString(),
      email: adminEmail(tenant),
      grantedAt: now.toISOString(),
      refundedAmount: grant.refundedAmount,
      refunds: 2,
      currency: 'usd',
    });

    // The sweep: decommissioning with all its Stacks, teardown after the export window.
    await api.sweep();
    const sweptBy = api.clock.now().getTime();
    const left = await getTenant(tenant.tenantId);
    expect(left?.billingState).toBe('decommissioning');
    expect(left?.leftBy).toBe('refund_granted');
    // The export window (7 days) runs from the sweep's look, after the grant.
    const teardownAt = Date.parse(left?.teardownAt ?? '');
    expect(teardownAt).toBeGreaterThanOrEqual(now.getTime() + 7 * DAY_MS);
    expect(teardownAt).toBeLessThanOrEqual(sweptBy + 7 * DAY_MS);
    expect((await listStacks(tenant.tenantId)).map((s) => s.lifecycle)).toEqual([
      'decommissioning',
      'decommissioning',
    ]);
    await api.sweep();
    const emails = (await emailsTo(adminEmail(tenant))).filter((e) => e.subject.includes('money-back'));
    expect(emails).toHaveLength(1);
    expect(emails[0]?.subject).toBe(`Your money-back refund for ${tenant.slug} is granted`);
    expect(emails[0]?.body.text).toContain(`US$${(grant.refundedAmount / 100).toFixed(2)}`);
    expect(emails[0]?.body.text).not.toMatch(/\b(cus|sub|pi|in)_/);

    const status = await statusOf(tenant);
    expect(status.history.at(-1)).toMatchObject({
      from: 'active',
      to: 'decommissioning',
      reason: 'refund_granted',
    });
    expect(status.closing).toMatchObject({ reason: 'refund_granted', stacksServeUntilTeardown: false });
    expect(status.moneyBack).toMatchObject({
      windowEndsAt,
      available: false,
      used: {
        requestedAt: now.toISOString(),
        grantedAt: now.toISOString(),
        refundedAmount: grant.refundedAmount,
        refunds: 2,
        currency: 'usd',
      },
    });
    expect(JSON.stringify(status)).not.toMatch(/\b(cus|sub|pi|in)_/);

    // Once per tenant, ever: a second request is refused and refunds nothing.
    const refundsBefore = refundPosts(customer).length;
    const again = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
    expect(again.code).toBe('already_used');
    expect(httpStatusOf(again)).toBe(409);
    expect(again.message).toContain(now.toISOString());
    expect(refundPosts(customer)).toHaveLength(refundsBefore);
  });

  it('is judged when support received the email: asked on day 13, granted on day 15; asked on day 15, refused window_passed', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const late = await api.subscribe({ plan: 'standard' });
    const lateCustomer = subscriptionOf(late.tenantId).customer;
    const paid = api.clock.now().getTime();
    api.clock.advance(15 * DAY_S);
    const now = api.clock.now();

    const refused = await refusalOf({ slug: late.slug, email: adminEmail(late), requestedAt: now, now });
    expect(refused.code).toBe('window_passed');
    expect(refused.message).toMatch(/window ended/);
    expect(refundPosts(lateCustomer)).toEqual([]);
    expect(subscriptionOf(late.tenantId).status).toBe('active');
    expect((await tenantItem(late.tenantId))?.moneyBack).toBeUndefined();

    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: new Date(paid + 13 * DAY_MS),
      now,
    });
    expect(grant.refunds).toBe(1);
    expect(refundPosts(customer)).toHaveLength(1);
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
  });
});

describe('refusals say why and change nothing', () => {
  it('another address: email_mismatch; an administrator’s in another case, or the billing address, is accepted', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const now = api.clock.now();
    const wrong = await refusalOf({ slug: tenant.slug, email: 'someone@else.test', now });
    expect(wrong.code).toBe('email_mismatch');
    expect(httpStatusOf(wrong)).toBe(403);
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toBeUndefined();
    expect(subscriptionOf(tenant.tenantId).status).toBe('active');

    const shouted = adminEmail(tenant).toUpperCase();
    expect((await grantMoneyBack({ slug: tenant.slug, email: ` ${shouted} `, now })).refunds).toBe(1);

    // The processor customer's own address counts too (the billing contact may not be an administrator).
    const other = await api.subscribe({ plan: 'standard' });
    const customer = emulator.state.customers[subscriptionOf(other.tenantId).customer];
    if (!customer) throw new Error('no customer');
    customer.email = 'Billing@Acme.test';
    expect(
      (await grantMoneyBack({ slug: other.slug, email: 'billing@acme.TEST', now: api.clock.now() })).refunds,
    ).toBe(1);
  });

  it('nothing paid yet: nothing_paid; an unknown slug: tenant_not_found; a future request time: requested_in_future', async () => {
    const tenant = await api.readyTenant();
    const now = api.clock.now();
    const unpaid = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now });
    expect(unpaid.code).toBe('nothing_paid');
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toBeUndefined();

    expect((await refusalOf({ slug: `no-${randomUUID().slice(0, 8)}`, email: 'a@b.test', now })).code).toBe(
      'tenant_not_found',
    );

    const paying = await api.subscribe({ plan: 'standard' });
    const future = await refusalOf({
      slug: paying.slug,
      email: adminEmail(paying),
      requestedAt: new Date(api.clock.now().getTime() + 60_000),
      now: api.clock.now(),
    });
    expect(future.code).toBe('requested_in_future');
    expect(httpStatusOf(future)).toBe(400);
    expect(subscriptionOf(paying.tenantId).status).toBe('active');
  });

  it('a decommissioning tenant (cancelled in the portal) is refused: decommissioning, whatever the request time', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const paidAt = api.clock.now().getTime();
    const { sessionToken } = await api.signIn(tenant.login);
    const portal = (await api.call('POST', '/v1/billing/portal', { token: sessionToken })).json.url as string;
    await cancelInPortal(portal);
    await api.sweep();
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
    const refused = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
    expect(refused.code).toBe('decommissioning');
    // Leaving is checked before the window: a request dated before the first payment says so too.
    const early = await refusalOf({
      ...adminRequest(tenant, new Date(paidAt - DAY_MS)),
      now: api.clock.now(),
    });
    expect(early.code).toBe('decommissioning');
    expect(refundPosts(subscriptionOf(tenant.tenantId).customer)).toEqual([]);
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toBeUndefined();
  });
});

describe('a crash between two refunds', () => {
  it('leaves the grant under way; the rerun continues it, refunds nothing twice, and the email goes once', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    api.clock.advance(DAY_S);
    await addStackAndChargeProration(tenant);
    const charges = chargesOf(customer);
    expect(charges).toHaveLength(2);
    api.clock.advance(DAY_S);
    const requestedAt = api.clock.now();

    // The processor takes the first refund; then the process dies (every later refund call fails).
    const original = emulator.route.bind(emulator);
    let taken = 0;
    emulator.route = (method, pathname, params) => {
      if (method === 'POST' && pathname === '/v1/refunds' && taken++ >= 1)
        throw new Error('injected: the process died before this refund');
      return original(method, pathname, params);
    };
    let crashed: Refusal;
    try {
      crashed = await refusalOf(adminRequest(tenant, requestedAt));
    } finally {
      emulator.route = original;
    }
    expect(httpStatusOf(crashed)).toBe(502);
    expect(crashed.message).toContain('Run the same request again');
    expect(
      Object.values(emulator.state.refunds).filter((r) => charges.some((p) => p.id === r.paymentIntent)),
    ).toHaveLength(1);
    // Refunds come before the cancel: the subscription still lives, the claim is there, not completed.
    expect(subscriptionOf(tenant.tenantId).status).toBe('active');
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toEqual({
      requestedAt: requestedAt.toISOString(),
      startedAt: requestedAt.toISOString(),
      email: adminEmail(tenant),
    });
    expect((await statusOf(tenant)).moneyBack).toMatchObject({ available: false, used: null });

    // The rerun (later, with the operator's time of now): the same grant, the same window.
    api.clock.advance(3600);
    const rerunAt = api.clock.now();
    const grant = await grantMoneyBack({ slug: tenant.slug, email: adminEmail(tenant), now: rerunAt });
    expect(grant).toMatchObject({
      continued: true,
      requestedAt: requestedAt.toISOString(),
      refunds: 2,
      refundedAmount: charges.reduce((sum, p) => sum + p.amount, 0),
    });
    for (const payment of charges) expect(refundsOf(payment.id), payment.id).toHaveLength(1);
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');

    // A third run is refused; the sweep sends one email however often it runs.
    expect((await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: rerunAt })).code).toBe(
      'already_used',
    );
    await api.sweep();
    await api.sweep();
    expect(await partitionItems(keys.outbox(moneyBackEmailKey(tenant.tenantId)).PK)).toHaveLength(1);
    expect((await emailsTo(adminEmail(tenant))).filter((e) => e.subject.includes('money-back'))).toHaveLength(
      1,
    );
    expect((await getTenant(tenant.tenantId))?.billingState).toBe('decommissioning');
  });
});

describe('how operators reach it', () => {
  it('npm run ops -- refund grants it on the local control plane (its clock), then refuses a second time (exit 1)', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const dataDir = opsDataFolder({
      api: api.apiUrl,
      environment: processorEnvironment(emulator.url),
      offsetMs: api.clock.offsetSeconds * 1000,
    });
    const ops = (args: string[]) => runOps([...args, '--data-dir', dataDir]);

    const before = api.clock.now().getTime();
    const granted = await ops(['refund', '--slug', tenant.slug, '--email', adminEmail(tenant)]);
    const after = api.clock.now().getTime();
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain(`Money-back refund granted to ${tenant.slug}`);
    const charged = chargesOf(customer);
    expect(granted.stdout).toContain(`Refunded: ${(charged[0]?.amount ?? 0) / 100}`);
    expect(refundsOf(charged[0]?.id ?? '')).toHaveLength(1);
    // The CLI's "now" was the local control plane's clock, not the wall clock.
    const grantedAt = Date.parse(String((await tenantItem(tenant.tenantId))?.moneyBack?.grantedAt));
    expect(grantedAt).toBeGreaterThanOrEqual(before);
    expect(grantedAt).toBeLessThanOrEqual(after);

    const again = await ops(['refund', '--slug', tenant.slug, '--email', adminEmail(tenant)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Refused (already_used)');

    const badTime = await ops([
      'refund',
      '--slug',
      tenant.slug,
      '--email',
      'x@y.test',
      '--requested-at',
      'yesterday',
    ]);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('--requested-at must be an ISO 8601 time');
  }, 60_000);

  it('POST /ops/refunds: no IAM locally (403, pointing at the CLI); the handler behind IAM answers the refusal or the grant', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const { sessionToken } = await api.signIn(tenant.login);
    const local = await api.call('POST', '/ops/refunds', {
      token: sessionToken,
      body: { slug: tenant.slug, email: adminEmail(tenant) },
    });
    expect(local.status).toBe(403);
    expect(local.json.message).toContain('npm run ops -- refund');
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toBeUndefined();

    const event = (body: unknown, iam?: Record<string, string>) => ({
      version: '2.0',
      routeKey: 'POST /ops/refunds',
      rawPath: '/ops/refunds',
      rawQueryString: '',
      headers: { 'content-type': 'application/json' },
      requestContext: {
        accountId: '000000000000',
        apiId: 'test',
        domainName: 'localhost',
        domainPrefix: 'localhost',
        http: {
          method: 'POST',
          path: '/ops/refunds',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: '',
        },
        requestId: randomUUID(),
        routeKey: 'POST /ops/refunds',
        stage: '$default',
        time: new Date().toUTCString(),
        timeEpoch: Date.now(),
        ...(iam ? { authorizer: { iam } } : {}),
      },
      body: JSON.stringify(body),
      isBase64Encoded: false,
    });
    const invoke = async (body: unknown, iam?: Record<string, string>) => {
      const result = await postOpsRefund(event(body, iam) as never, {} as Context);
      return { status: result.statusCode, json: JSON.parse(result.body ?? '{}') };
    };
    const operator = { userArn: 'arn:aws:iam::000000000000:user/operator', callerId: 'AIDAOPERATOR' };

    const unsigned = await invoke({ slug: tenant.slug, email: adminEmail(tenant) });
    expect(unsigned.status).toBe(403);
    expect(unsigned.json.error.code).toBe('iam_required');

    const mismatch = await invoke({ slug: tenant.slug, email: 'nobody@else.test' }, operator);
    expect(mismatch.status).toBe(403);
    expect(mismatch.json.error.code).toBe('email_mismatch');

    const badTime = await invoke(
      { slug: tenant.slug, email: adminEmail(tenant), requestedAt: 'soon' },
      operator,
    );
    expect(badTime.status).toBe(400);
    expect((await tenantItem(tenant.tenantId))?.moneyBack).toBeUndefined();

    const granted = await invoke(
      { slug: tenant.slug, email: adminEmail(tenant), requestedAt: api.clock.now().toISOString() },
      operator,
    );
    expect(granted.status).toBe(200);
    expect(granted.json).toMatchObject({ slug: tenant.slug, refunds: 1, continued: false });
    expect(JSON.stringify(granted.json)).not.toMatch(/\b(cus|sub|pi|in)_/);
    expect(subscriptionOf(tenant.tenantId).status).toBe('canceled');
  });
});
