import { describe, expect, it } from 'vitest';
import { refundPayment } from '#ports/processor/payments.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import { uniqueLogin } from '../support/gateway.ts';

/**
 * What a tenant pays and paid, read from the processor emulator through the port:
 * GET /v1/billing/summary (this period's invoice per Stack and Plan, the next invoice, the card)
 * and GET /v1/billing/invoices (newest first, paged with our own cursor, refunds on their invoice).
 */

const { api } = gatewayForFile({ processor: true });

const get = (token: string, path: string) => api.call('GET', path, { token });

/**
 * Processor ids (`cus_…`, `in_…`, `pi_…`, `acct_…`) and the processor's address anywhere in a
 * body: none, not even in an invoice's links (issue 35, item 5: they are ours).
 */
const processorIdsIn = (body: unknown): string[] => {
  const text = JSON.stringify(body);
  return [
    ...(text.match(/\b(cus|sub|in|pi|pm|price|prod|ii|il|si|inpay|re|acct)_[A-Za-z0-9]+/g) ?? []),
    ...(api.emulator && text.includes(new URL(api.emulator.url).host) ? [api.emulator.url] : []),
    ...(text.includes('/i/') ? ['/i/'] : []),
  ];
};

/** The emulator's invoice of a tenant with this number. */
const emulatorInvoice = (number: string) => {
  const found = Object.values(api.emulator?.state.invoices ?? {}).find((i) => i.number === number);
  if (!found) throw new Error(`no invoice ${number}`);
  return found;
};

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
    // Its links are ours; the upcoming invoice, not issued yet, has none.
    const { ref } = json.currentInvoice;
    expect(ref).toMatch(/^\d+-[0-9a-f]{20}$/);
    expect(json.currentInvoice).toMatchObject({
      viewUrl: `/v1/billing/invoices/${ref}/view`,
      pdfUrl: `/v1/billing/invoices/${ref}/pdf`,
    });
    expect(json.nextInvoice).toMatchObject({
      number: null,
      ref: null,
      viewUrl: null,
      pdfUrl: null,
      total: 5000,
      invoiceAt: new Date((subscription?.currentPeriodEnd ?? 0) * 1000).toISOString(),
      lines: [{ description: `${name} on Plus`, amount: 5000 }],
    });
    expect(processorIdsIn(json)).toEqual([]);
  });

  it('splits a Plan billed for two Stacks into one line per Stack', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    await api.addStack(tenant, 'standard');
    await api.sweep();
    const { json: stacks } = await get(tenant.sessionToken, '/v1/stacks');
    const names = stacks.stacks.map((s: { name: string }) => s.name).sort();
    const { json } = await get(tenant.sessionToken, '/v1/billing/summary');
    const periodLines = json.nextInvoice.lines.filter((l: { stack: string | null }) => l.stack !== null);
    expect(periodLines).toEqual(
      names.map((stack: string) => ({
        description: `${stack} on Standard`,
        item: `${stack} on Standard`,
        proration: false,
        periodStart: json.nextInvoice.periodStart,
        periodEnd: json.nextInvoice.periodEnd,
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
    const oldest = emulatorInvoice(seen.at(-1) ?? '');
    if (!oldest.paymentIntent) throw new Error('no payment on the oldest invoice');
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

describe('GET /v1/billing/invoices/{invoiceRef}/{document}', () => {
  const open = (token: string, path: string | null) => get(token, path ?? '(no link)');

  it('redirects (303) to the processor’s page and PDF of the caller’s invoice, read now; the reference is not the processor’s id', async () => {
    const tenant = await api.subscribe({ plan: 'standard' });
    const { json } = await get(tenant.sessionToken, '/v1/billing/invoices');
    const [invoice] = json.invoices;
    const stored = emulatorInvoice(invoice.number);
    expect(invoice.ref).not.toContain(stored.id);
    expect(invoice.ref).not.toContain(stored.id.slice(3));
    const view = await open(tenant.sessionToken, invoice.viewUrl);
    expect(view.status).toBe(303);
    expect(view.headers.location).toBe(`${api.emulator?.url}/i/${stored.id}`);
    expect(view.json).toBeUndefined();
    const pdf = await open(tenant.sessionToken, invoice.pdfUrl);
    expect(pdf.status).toBe(303);
    expect(pdf.headers.location).toBe(`${api.emulator?.url}/i/${stored.id}/pdf`);
    // The processor's page is where it leads: the invoice itself.
    const page = await fetch(pdf.headers.location ?? '');
    expect(await page.text()).toContain(`Invoice ${invoice.number}`);
    // A member reads it too, like the list.
    const memberLogin = uniqueLogin('reader');
    const member = await api.addMember(tenant, memberLogin);
    expect(member.role).toBe('member');
    expect((await open(member.sessionToken, invoice.viewUrl)).status).toBe(303);
  });

  it('never reaches another tenant’s invoice, and refuses a reference it never gave (404, nothing of the processor in the answer)', async () => {
    const victim = await api.subscribe({ plan: 'plus' });
    const intruder = await api.subscribe({ plan: 'plus' });
    const [theirs] = (await get(victim.sessionToken, '/v1/billing/invoices')).json.invoices;
    const [mine] = (await get(intruder.sessionToken, '/v1/billing/invoices')).json.invoices;
    expect(mine.ref).not.toBe(theirs.ref);
    const stored = emulatorInvoice(theirs.number);
    for (const path of [
      theirs.viewUrl,
      theirs.pdfUrl,
      // Made up: the victim's second with other digits, the processor's own id, no such page.
      `/v1/billing/invoices/${theirs.ref.replace(/-.*/, '-0123456789abcdef0123')}/view`,
      `/v1/billing/invoices/${stored.id}/view`,
      `/v1/billing/invoices/${encodeURIComponent(theirs.ref)}%2Fview/view`,
    ]) {
      const refused = await open(intruder.sessionToken, path);
      expect(refused.status, path).toBe(404);
      expect(refused.json.error.code, path).toBe('invoice_not_found');
      expect(refused.headers.location, path).toBeUndefined();
      expect(processorIdsIn(refused.json), path).toEqual([]);
    }
    const unknown = await open(victim.sessionToken, theirs.viewUrl.replace(/view$/, 'receipt'));
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('invoice_document_unknown');
    // A tenant that never checked out has no invoice at all.
    const fresh = await api.readyTenant();
    expect((await open(fresh.sessionToken, theirs.viewUrl)).status).toBe(404);
    // The victim's own link still leads to its own invoice.
    expect((await open(victim.sessionToken, theirs.viewUrl)).headers.location).toBe(
      `${api.emulator?.url}/i/${stored.id}`,
    );
  });
});
