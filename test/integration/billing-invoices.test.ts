import { describe, expect, it } from 'vitest';
import { refundPayment } from '#ports/processor/payments.ts';
import { gatewayForFile } from '../support/file-gateway.ts';

/**
 * What a tenant pays and paid, read from the processor emulator through the port:
 * GET /v1/billing/summary (this period's invoice per Stack and Plan, the next invoice, the card)
 * and GET /v1/billing/invoices (newest first, paged with our own cursor, refunds on their invoice).
 */

const { api } = gatewayForFile({ processor: true });

const get = (token: string, path: string) => api.call('GET', path, { token });

/** Processor ids (`cus_…`, `in_…`, `pi_…`) anywhere in a body but the processor's own page addresses. */
const processorIdsIn = (body: unknown): string[] =>
  JSON.stringify(body, (key, value) => (key === 'hostedInvoiceUrl' || key === 'pdfUrl' ? null : value)).match(
    /\b(cus|sub|in|pi|pm|price|prod|ii|il|si|inpay|re)_[A-Za-z0-9]+/g,
  ) ?? [];

const stackName = async (token: string): Promise<string> => {
  const { json } = await get(token, '/v1/stacks');
  return json.stacks[0].name;
};

describe('GET /v1/billing/summary', () => {
  it('is empty before the first checkout', async () => {
    const tenant = await api.readyTenant();
    const summary = await get(tenant.sessionToken, '/v1/billing/summary');
    expect(summary.status).toBe(200);
    expect(summary.json).toEqual({ paymentMethod: null, currentInvoice: null, nextInvoice: null });
    const invoices = await get(tenant.sessionToken, '/v1/billing/invoices');
    expect(invoices.json).toEqual({ invoices: [], next: null });
  });

  it('shows the card on file, this period’s invoice line by Stack and Plan, and the next invoice’s date and amount', async () => {
    const tenant = await api.subscribe({ plan: 'plus' });
    const name = await stackName(tenant.sessionToken);
    const { status, json } = await get(tenant.sessionToken, '/v1/billing/summary');
    expect(status).toBe(200);
    const subscription = Object.values(api.emulator?.state.subscriptions ?? {}).find(
      (s) => s.metadata.tenantId === tenant.tenantId,
    );
    expect(json.paymentMethod).toEqual({
      brand: 'visa',
      last4: '4242',
      expMonth: 12,
      expYear: expect.any(Number),
    });
    expect(json.currentInvoice).toMatchObject({
      status: 'paid',
      statusText: 'Paid',
      total: 5000,
      amountPaid: 5000,
      refunded: 0,
      lines: [{ description: `${name} on Plus`, stack: name, plan: 'plus', amount: 5000, discount: 0 }],
    });
    expect(json.currentInvoice.number).toMatch(/\S/);
    expect(json.currentInvoice.hostedInvoiceUrl).toMatch(/^http:\/\/.+\/i\//);
    expect(json.nextInvoice).toMatchObject({
      number: null,
      hostedInvoiceUrl: null,
      total: 5000,
      invoiceAt: new Date((subscription?.currentPeriodEnd ?? 0) * 1000).toISOString(),
      lines: [{ description: `${name} on Plus`, amount: 5000 }],
    });
    expect(processorIdsIn(json)).toEqual([]);
  });

  it('splits a Plan billed for two Stacks into one line per Stack', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const added = await api.call('POST', '/v1/stacks', {
      token: tenant.sessionToken,
      body: { plan: 'standard' },
    });
    expect(added.status).toBe(201);
    await api.sweep();
    const { json: stacks } = await get(tenant.sessionToken, '/v1/stacks');
    const names = stacks.stacks.map((s: { name: string }) => s.name).sort();
    const { json } = await get(tenant.sessionToken, '/v1/billing/summary');
    const periodLines = json.nextInvoice.lines.filter((l: { stack: string | null }) => l.stack !== null);
    expect(periodLines).toEqual(
      names.map((stack: string) => ({
        description: `${stack} on Standard`,
        stack,
        plan: 'standard',
        amount: 4000,
        discount: 0,
        tax: 0,
      })),
    );
    // The added Stack's proration is on the next invoice in our words (the processor credits the
    // old quantity and charges the new one for the rest of the period).
    const span = 'from \\d{4}-\\d\\d-\\d\\d to \\d{4}-\\d\\d-\\d\\d';
    expect(
      json.nextInvoice.lines
        .filter((l: { stack: string | null }) => l.stack === null)
        .map((l: { description: string }) => l.description),
    ).toEqual([
      expect.stringMatching(new RegExp(`^Credit for the unused time of 1 Standard Stack, ${span}$`)),
      expect.stringMatching(new RegExp(`^Charge for 2 Standard Stacks, ${span}$`)),
    ]);
  });
});

describe('GET /v1/billing/invoices', () => {
  it('pages the invoices newest first with our cursor, and shows a refund on the invoice it belongs to', async () => {
    const subscribed = await api.subscribe({ plan: 'pro' });
    for (const _ of [1, 2]) {
      api.clock.advance(32 * 86400);
      await api.sweep();
    }
    // Two months on, the first session has expired: the same person signs in again.
    const tenant = await api.signIn(subscribed.login);
    const all = await get(tenant.sessionToken, '/v1/billing/invoices');
    expect(all.status).toBe(200);
    expect(all.json.next).toBeNull();
    expect(all.json.invoices).toHaveLength(3);
    const issued = all.json.invoices.map((i: { issuedAt: string }) => i.issuedAt);
    expect(issued).toEqual([...issued].sort().reverse());
    expect(processorIdsIn(all.json)).toEqual([]);

    // One at a time: the same invoices, in the same order, then no next page.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; json: { invoices: { number: string }[]; next: string | null } } =
        await get(
          tenant.sessionToken,
          `/v1/billing/invoices?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
      expect(page.status).toBe(200);
      expect(page.json.invoices).toHaveLength(1);
      seen.push(...page.json.invoices.map((i) => i.number));
      cursor = page.json.next;
    } while (cursor);
    expect(seen).toEqual(all.json.invoices.map((i: { number: string }) => i.number));

    // A refund of the oldest invoice's payment shows on that invoice only.
    const oldest = Object.values(api.emulator?.state.invoices ?? {})
      .filter((i) => i.number === seen.at(-1))
      .at(0);
    if (!oldest?.paymentIntent) throw new Error('no payment on the oldest invoice');
    await refundPayment(oldest.paymentIntent, 'refund_granted');
    const after = await get(tenant.sessionToken, '/v1/billing/invoices');
    expect(after.json.invoices.map((i: { refunded: number }) => i.refunded)).toEqual([0, 0, 6000]);
  });

  it('refuses a limit out of range and a cursor it did not give, naming the field', async () => {
    const tenant = await api.readyTenant();
    for (const query of ['limit=0', 'limit=26', 'limit=two', 'cursor=in_123']) {
      const refused = await get(tenant.sessionToken, `/v1/billing/invoices?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json.error.field, query).toBe(query.split('=')[0]);
    }
  });
});
