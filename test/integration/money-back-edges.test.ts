import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Refusal } from '#core/refusal.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo } from '../support/gateway.ts';
import { payOnCheckout, TEST_CARDS } from '../support/hosted-pages.ts';
import { adminEmail, adminRequest, refusalOf } from '../support/money-back.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The money-back refund at its edges: only what was paid in the window is refunded, whenever the
 * operator acts; what each refusal carries; a grant continued after a crash is judged and
 * confirmed as its first run was; what the tenant's billing status offers before and after.
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf } = processorView(emulator);

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

const chargesOf = (customer: string) =>
  Object.values(emulator.state.paymentIntents)
    .filter((p) => p.customer === customer && p.status === 'succeeded')
    .sort((a, b) => a.created - b.created);
const refundedIntents = (customer: string) => {
  const intents = new Set(chargesOf(customer).map((p) => p.id));
  return Object.values(emulator.state.refunds)
    .filter((r) => intents.has(r.paymentIntent))
    .map((r) => r.paymentIntent);
};
const moneyBackRecord = async (tenantId: string) =>
  (
    await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }),
    )
  ).Item?.moneyBack;
const statusOf = async (tenant: { login: string }) => {
  const { sessionToken } = await api.signIn(tenant.login);
  return (await api.call('GET', '/v1/billing/status', { token: sessionToken })).json;
};

describe('only what was paid in the window is refunded', () => {
  it('asked on day 13, granted on day 31: the renewal paid on day 30 is not refunded', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const paidAt = api.clock.now().getTime();
    api.clock.advance(31 * DAY_S);
    await api.sweep();
    const charges = chargesOf(customer);
    expect(charges).toHaveLength(2);
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: new Date(paidAt + 13 * DAY_MS),
      now: api.clock.now(),
    });
    expect(grant).toMatchObject({ refunds: 1, refundedAmount: charges[0]?.amount });
    expect(refundedIntents(customer)).toEqual([charges[0]?.id]);
  });
});

describe('what the billing status offers', () => {
  it('the refund until the window ends, not after', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const before = (await statusOf(tenant)).moneyBack;
    expect(before.available).toBe(true);
    api.clock.advance(Math.ceil((Date.parse(before.windowEndsAt) - api.clock.now().getTime()) / 1000) + 1);
    expect((await statusOf(tenant)).moneyBack).toMatchObject({ available: false, used: null });
  });

  it('nothing before a payment: no window, not available', async () => {
    const tenant = await api.readyTenant();
    expect((await statusOf(tenant)).moneyBack).toMatchObject({
      windowEndsAt: null,
      available: false,
      used: null,
    });
  });
});

describe('what a refusal carries', () => {
  it('window_passed: when the window ended; nothing_paid: no window; already_used: when it was granted', async () => {
    const late = await api.subscribe({ plan: 'standard' });
    const windowEndsAt = (await statusOf(late)).moneyBack.windowEndsAt;
    api.clock.advance(15 * DAY_S);
    const passed = await refusalOf({ slug: late.slug, email: adminEmail(late), now: api.clock.now() });
    expect(passed.code).toBe('window_passed');
    expect(passed.extra).toEqual({ windowEndsAt });

    const unpaid = await api.readyTenant();
    const nothing = await refusalOf({ slug: unpaid.slug, email: adminEmail(unpaid), now: api.clock.now() });
    expect(nothing.code).toBe('nothing_paid');
    expect(nothing.extra).toEqual({ windowEndsAt: null });

    const used = await api.subscribe({ plan: 'standard' });
    const grant = await grantMoneyBack({ slug: used.slug, email: adminEmail(used), now: api.clock.now() });
    const again = await refusalOf({ slug: used.slug, email: adminEmail(used), now: api.clock.now() });
    expect(again.code).toBe('already_used');
    expect(again.extra).toMatchObject({ grantedAt: grant.grantedAt });
  });

  it('an unknown slug: 404 naming the slug field; an account without a processor customer: email_mismatch', async () => {
    const unknown = await refusalOf({ slug: 'nobody-here', email: 'a@b.test', now: api.clock.now() });
    expect(unknown).toMatchObject({
      status: 404,
      code: 'tenant_not_found',
      message: 'No tenant has the slug "nobody-here".',
      field: 'slug',
    });
    const never = await api.readyTenant();
    const mismatch = await refusalOf({ slug: never.slug, email: 'someone@else.test', now: api.clock.now() });
    expect(mismatch.code).toBe('email_mismatch');
  });

  it('paid on the page but not yet seen by the sweep: payment_not_seen_yet, try again in a minute', async () => {
    const tenant = await api.readyTenant();
    const { json } = await api.call('POST', '/v1/billing/checkout', {
      token: tenant.sessionToken,
      body: { plan: 'standard' },
    });
    expect((await payOnCheckout(json.url, TEST_CARDS.succeeds)).status).toBe(303);
    const refused = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
    expect(refused).toMatchObject({
      status: 409,
      code: 'payment_not_seen_yet',
      message:
        'The first payment is not recorded yet (the sweep records it within a minute of the payment): try again in a minute.',
    });
    expect(await moneyBackRecord(tenant.tenantId)).toBeUndefined();
  });

  it('the processor failing: 502, saying whether it did not answer or refused, and to run it again', async () => {
    for (const [kind, code, words] of [
      ['unavailable', 'processor_unavailable', 'The payment processor did not answer'],
      ['refuse', 'processor_error', 'The payment processor refused a request'],
    ] as const) {
      const tenant = await api.subscribe({ plan: 'standard' });
      emulator.faults.push({ method: 'POST', path: '/v1/refunds', kind, times: 10 });
      try {
        const refused = await refusalOf({
          slug: tenant.slug,
          email: adminEmail(tenant),
          now: api.clock.now(),
        });
        expect(refused).toMatchObject({ status: 502, code });
        expect(refused.message).toContain(words);
        expect(refused.message).toContain('Run the same request again');
      } finally {
        emulator.faults.length = 0;
      }
    }
  });
});

describe('the request as the operator types it', () => {
  it('the slug in any case and the address with blanks around it are the same', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const grant = await grantMoneyBack({
      slug: ` ${tenant.slug.toUpperCase()} `,
      email: `  ${adminEmail(tenant)}  `,
      now: api.clock.now(),
    });
    expect(grant.refunds).toBe(1);
    expect((await moneyBackRecord(tenant.tenantId))?.email).toBe(adminEmail(tenant));
  });
});

describe('a grant continued after a crash', () => {
  it('is judged at its first request time and confirmed to the address its first run was given', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const billing = emulator.state.customers[customer];
    if (!billing) throw new Error('no customer');
    billing.email = 'billing@acme.test';
    api.clock.advance(13 * DAY_S);
    const requestedAt = api.clock.now();
    emulator.faults.push({ method: 'POST', path: '/v1/refunds', kind: 'unavailable', times: 10 });
    let crashed: Refusal;
    try {
      crashed = await refusalOf(adminRequest(tenant, requestedAt));
    } finally {
      emulator.faults.length = 0;
    }
    expect(crashed.status).toBe(502);

    // Day 20, outside the window: the grant under way is still judged on day 13.
    api.clock.advance(7 * DAY_S);
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: 'Billing@acme.test',
      now: api.clock.now(),
    });
    expect(grant).toMatchObject({ continued: true, requestedAt: requestedAt.toISOString(), refunds: 1 });
    await api.sweep();
    await api.sweep();
    const confirmations = (await emailsTo(adminEmail(tenant))).filter((e) =>
      e.subject.includes('money-back'),
    );
    expect(confirmations).toHaveLength(1);
    expect((await emailsTo('Billing@acme.test')).filter((e) => e.subject.includes('money-back'))).toEqual([]);
  });
});
