import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Refusal } from '#core/refusal.ts';
import { statusOf as httpStatusOf } from '#http/refusal-status.ts';
import { db, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { grantMoneyBack } from '../../functions/billing/money-back.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { emailsTo } from '../support/gateway.ts';
import { cancelInPortal } from '../support/hosted-pages.ts';
import { adminEmail, adminRequest, refusalOf } from '../support/money-back.ts';
import { processorView } from '../support/processor-view.ts';

/**
 * The money-back refund at its edges: only what was paid in the window is refunded, whenever the
 * operator acts; what each refusal carries; a grant continued after a crash is judged and
 * confirmed as its first run was; what the tenant's billing status offers before and after.
 */

const { api, emulator } = gatewayForFile({ processor: true });
const { subscriptionOf, chargesOf } = processorView(emulator);

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

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
const refundedAmount = (customer: string) => {
  const intents = new Set(chargesOf(customer).map((p) => p.id));
  return Object.values(emulator.state.refunds)
    .filter((r) => intents.has(r.paymentIntent))
    .reduce((sum, r) => sum + r.amount, 0);
};

/**
 * Runs `body` with the first DynamoDB command of the tenant's item that `pick` matches held until
 * `release()`: one run paused just before that write while another goes on, so a race between two
 * runs ends the same way every time. `reached` settles when the command is held.
 */
const holdingFirst = async <T>(
  tenantId: string,
  pick: (input: {
    UpdateExpression?: string;
    TransactItems?: { Update?: { UpdateExpression?: string } }[];
  }) => boolean,
  body: (gate: { reached: Promise<void>; release: () => void }) => Promise<T>,
): Promise<T> => {
  const client = db();
  const original = client.send;
  const pk = keys.tenant(tenantId).PK;
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reach = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  let held = false;
  const ofTenant = (input: Record<string, unknown>) => JSON.stringify(input).includes(`"${pk}"`);
  client.send = (async (command: { input: Record<string, unknown> }, ...rest: unknown[]) => {
    if (!held && ofTenant(command.input) && pick(command.input)) {
      held = true;
      reach();
      await released;
    }
    return (original as (...args: unknown[]) => Promise<unknown>).call(client, command, ...rest);
  }) as typeof client.send;
  try {
    return await body({ reached, release });
  } finally {
    client.send = original;
    release();
  }
};
const isClaim = (input: { UpdateExpression?: string }) =>
  input.UpdateExpression?.startsWith('SET moneyBack = if_not_exists') === true;
const isCompletion = (input: { TransactItems?: { Update?: { UpdateExpression?: string } }[] }) =>
  input.TransactItems?.some((item) => item.Update?.UpdateExpression?.includes('moneyBack.grantedAt')) ===
  true;

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
      kind: 'not_found',
      code: 'tenant_not_found',
      message: 'No tenant has the slug "nobody-here".',
      field: 'slug',
    });
    const never = await api.readyTenant();
    const mismatch = await refusalOf({ slug: never.slug, email: 'someone@else.test', now: api.clock.now() });
    expect(mismatch.code).toBe('email_mismatch');
  });

  it('paid on the page but not yet seen by the sweep: payment_not_seen_yet, try again in a minute', async () => {
    const tenant = await api.paidNotSwept({ plan: 'standard' });
    const refused = await refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
    expect(refused).toMatchObject({
      kind: 'conflict',
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
        expect(refused).toMatchObject({ kind: 'upstream_failed', code });
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
    expect(grant).toMatchObject({ slug: tenant.slug, refunds: 1 });
    expect((await moneyBackRecord(tenant.tenantId))?.email).toBe(adminEmail(tenant));
    // The confirmation names the tenant's own slug, not the operator's spelling of it.
    await api.sweep();
    const confirmations = (await emailsTo(adminEmail(tenant))).filter((e) =>
      e.subject.includes('money-back'),
    );
    expect(confirmations.map((e) => e.subject)).toEqual([
      `Your money-back refund for ${tenant.slug} is granted`,
    ]);
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
    expect(httpStatusOf(crashed)).toBe(502);

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

describe('a grant continued after a crash, asked again', () => {
  it('with a future request time: refused requested_in_future naming that time; a part refunded in between counts once in the total', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    api.clock.advance(2 * DAY_S);
    const requestedAt = api.clock.now();
    emulator.faults.push({ method: 'POST', path: '/v1/refunds', kind: 'unavailable', times: 10 });
    try {
      expect(httpStatusOf(await refusalOf(adminRequest(tenant, requestedAt)))).toBe(502);
    } finally {
      emulator.faults.length = 0;
    }
    const claim = await moneyBackRecord(tenant.tenantId);
    expect(claim).toMatchObject({ requestedAt: requestedAt.toISOString() });

    // A time after now is refused as given, even for a grant under way (it is never judged at the first run's time).
    api.clock.advance(3600);
    const future = new Date(api.clock.now().getTime() + 60_000);
    const refused = await refusalOf({
      slug: tenant.slug,
      email: adminEmail(tenant),
      requestedAt: future,
      now: api.clock.now(),
    });
    expect(refused).toMatchObject({ kind: 'invalid', code: 'requested_in_future' });
    expect(refused.message).toContain(`(${future.toISOString()})`);
    expect(refundedIntents(customer)).toEqual([]);
    expect(await moneyBackRecord(tenant.tenantId)).toEqual(claim);

    // Support refunds part of the payment in the processor's dashboard; the rerun refunds the rest.
    const [payment] = chargesOf(customer);
    if (!payment) throw new Error('no payment');
    const part = 1_000;
    expect(payment.amount).toBeGreaterThan(part);
    emulator.route('POST', '/v1/refunds', { payment_intent: payment.id, amount: String(part) });
    const grant = await grantMoneyBack({
      slug: tenant.slug,
      email: adminEmail(tenant),
      now: api.clock.now(),
    });
    // The whole payment came back once: the part before counts once, and the rest.
    expect(refundedAmount(customer)).toBe(payment.amount);
    expect(grant).toMatchObject({ continued: true, refundedAmount: payment.amount, refunds: 2 });
    expect(await moneyBackRecord(tenant.tenantId)).toMatchObject({
      refundedAmount: payment.amount,
      refunds: 2,
    });
  });
});

describe('two runs of the same grant at once', () => {
  it('a run whose claim comes after the other completed: already_used, with when it was granted, nothing refunded twice', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const now = api.clock.now();
    const { grant, refused } = await holdingFirst(tenant.tenantId, isClaim, async (gate) => {
      const late = refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now });
      await gate.reached;
      const grant = await grantMoneyBack({ slug: tenant.slug, email: adminEmail(tenant), now });
      gate.release();
      return { grant, refused: await late };
    });
    expect(grant.continued).toBe(false);
    expect(refused).toMatchObject({ kind: 'conflict', code: 'already_used' });
    expect(refused.extra).toEqual({ windowEndsAt: grant.window.until, grantedAt: grant.grantedAt });
    expect(refused.message).toContain(`(granted ${grant.grantedAt})`);
    expect(refundedIntents(customer)).toEqual(chargesOf(customer).map((p) => p.id));
  });

  it('a run whose claim comes after the tenant left: decommissioning, nothing refunded, no grant recorded', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    const windowEndsAt = (await statusOf(tenant)).moneyBack.windowEndsAt;
    const refused = await holdingFirst(tenant.tenantId, isClaim, async (gate) => {
      const late = refusalOf({ slug: tenant.slug, email: adminEmail(tenant), now: api.clock.now() });
      await gate.reached;
      const { sessionToken } = await api.signIn(tenant.login);
      const portal = (await api.call('POST', '/v1/billing/portal', { token: sessionToken })).json
        .url as string;
      await cancelInPortal(portal);
      await api.sweep();
      gate.release();
      return late;
    });
    expect(refused).toMatchObject({ kind: 'conflict', code: 'decommissioning' });
    expect(refused.extra).toEqual({ windowEndsAt });
    expect(refundedIntents(customer)).toEqual([]);
    expect(await moneyBackRecord(tenant.tenantId)).toBeUndefined();
  });

  it('a run whose completion comes after the other completed: answers the grant as recorded, continued, one email', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const customer = subscriptionOf(tenant.tenantId).customer;
    api.clock.advance(60);
    const second = api.clock.now();
    const first = new Date(second.getTime() - 1000);
    const [held, winner] = await holdingFirst(tenant.tenantId, isCompletion, async (gate) => {
      const held = grantMoneyBack({ slug: tenant.slug, email: adminEmail(tenant), now: first });
      await gate.reached;
      const winner = await grantMoneyBack({ slug: tenant.slug, email: adminEmail(tenant), now: second });
      gate.release();
      return [await held, winner] as const;
    });
    const [payment] = chargesOf(customer);
    expect(winner).toMatchObject({ grantedAt: second.toISOString(), continued: true });
    expect(held).toEqual({ ...winner, continued: true });
    expect(held.refundedAmount).toBe(payment?.amount);
    expect(await moneyBackRecord(tenant.tenantId)).toMatchObject({
      requestedAt: first.toISOString(),
      grantedAt: second.toISOString(),
      refundedAmount: payment?.amount,
      refunds: 1,
    });
    expect(refundedIntents(customer)).toEqual([payment?.id]);
    await api.sweep();
    expect((await emailsTo(adminEmail(tenant))).filter((e) => e.subject.includes('money-back'))).toHaveLength(
      1,
    );
  });
});
