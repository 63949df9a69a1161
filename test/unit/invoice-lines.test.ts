import { describe, expect, it } from 'vitest';
import { invoiceCursor, invoiceDocumentPath, invoiceLines, invoiceRef, splitEvenly } from '#core/invoices.ts';

const period = { periodStart: '2026-11-01T00:00:00.000Z', periodEnd: '2026-12-01T00:00:00.000Z' };

describe('an invoice’s lines as the tenant reads them', () => {
  it('splits a Plan billed for several Stacks into one line per Stack, by name, amounts to the cent', () => {
    const lines = invoiceLines(
      [
        {
          plan: 'standard',
          quantity: 3,
          amount: 12000,
          discount: 1000,
          tax: 2201,
          proration: false,
          ...period,
        },
      ],
      [
        { name: 's3.acme', plan: 'standard' },
        { name: 's1.acme', plan: 'standard' },
        { name: 's2.acme', plan: 'pro' },
      ],
    );
    expect(lines.map((l) => [l.description, l.stack, l.amount, l.discount, l.tax])).toEqual([
      ['s1.acme on Standard', 's1.acme', 4000, 334, 734],
      ['s3.acme on Standard', 's3.acme', 4000, 333, 734],
      ['Standard (1 Stack)', null, 4000, 333, 733],
    ]);
  });

  it('writes a proration in our words and names no Stack', () => {
    const [line] = invoiceLines(
      [{ plan: 'pro', quantity: 1, amount: -3000, discount: 0, tax: 0, proration: true, ...period }],
      [{ name: 's1.acme', plan: 'pro' }],
    );
    expect(line).toEqual({
      description: 'Credit for the unused time of 1 Pro Stack, from 2026-11-01 to 2026-12-01',
      // The same words without the days, and the days themselves: the console writes them its way.
      item: 'Credit for the unused time of 1 Pro Stack',
      proration: true,
      ...period,
      stack: null,
      plan: 'pro',
      amount: -3000,
      discount: 0,
      tax: 0,
    });
  });

  it('names the one Stack of a Plan billed once', () => {
    expect(
      invoiceLines(
        [{ plan: 'plus', quantity: 1, amount: 5000, discount: 0, tax: 0, proration: false, ...period }],
        [{ name: 's1.acme', plan: 'plus' }],
      )[0],
    ).toMatchObject({ description: 's1.acme on Plus', item: 's1.acme on Plus', proration: false, ...period });
  });

  it('splits a negative total evenly too, the remainder on the first parts', () => {
    expect(splitEvenly(-10, 3)).toEqual([-4, -3, -3]);
    expect(splitEvenly(10, 3)).toEqual([4, 3, 3]);
    expect(splitEvenly(0, 2)).toEqual([0, 0]);
  });

  it('gives and reads back its own cursor, and no other', () => {
    expect(invoiceCursor.parse(invoiceCursor.format({ created: 1795000000, shown: 2 }))).toEqual({
      created: 1795000000,
      shown: 2,
    });
    for (const bad of ['in_123', '', '1.', '.2', '1.2.3', '-1.2'])
      expect(invoiceCursor.parse(bad), bad).toBeNull();
  });

  it('names an invoice by a reference of ours: one way, bound to its customer, the second it was made readable', () => {
    const invoice = { customerId: 'cus_Alpha123', invoiceId: 'in_1QxYz9AbCdEf', created: 1795000000 };
    const ref = invoiceRef.of(invoice);
    expect(ref).toMatch(/^1795000000-[0-9a-f]{20}$/);
    expect(ref).not.toMatch(/in_|cus_|QxYz/);
    expect(invoiceRef.of(invoice)).toBe(ref);
    // Another customer's invoice of the same id and second has another reference.
    expect(invoiceRef.of({ ...invoice, customerId: 'cus_Beta456' })).not.toBe(ref);
    expect(invoiceRef.of({ ...invoice, invoiceId: 'in_1QxYz9AbCdEg' })).not.toBe(ref);
    expect(invoiceRef.createdOf(ref)).toBe(1795000000);
    for (const bad of ['in_1QxYz9AbCdEf', '', `${ref}0`, ref.toUpperCase(), `x${ref}`, '1795000000-'])
      expect(invoiceRef.createdOf(bad), bad).toBeNull();
    expect(invoiceDocumentPath(ref, 'pdf')).toBe(`/v1/billing/invoices/${ref}/pdf`);
  });
});
