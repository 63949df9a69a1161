import { describe, expect, it } from 'vitest';
import { changeLineText, type EstimateFacts, estimateView } from '#core/estimates.ts';

/** The estimate a tenant reads: the change's own share after the discount, its tax, its lines in our words. */

const facts: EstimateFacts = {
  currency: 'usd',
  subtotal: 6833,
  discount: 3416,
  tax: 649,
  total: 4066,
  amountDue: 4066,
  adjustment: 417,
  adjustmentTax: 79,
  invoiceAt: '2026-12-01T00:00:00.000Z',
  changeLines: [
    {
      priceId: 'price_plus',
      quantity: 1,
      amount: -4167,
      discount: -2084,
      tax: -396,
      periodStart: '2026-11-06T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
    },
    {
      priceId: 'price_pro',
      quantity: 1,
      amount: 5000,
      discount: 2500,
      tax: 475,
      periodStart: '2026-11-06T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
    },
  ],
};

describe('an estimate as the tenant reads it', () => {
  it('shows the change’s adjustment after the discount, its tax, and what the next invoice changes by', () => {
    const plans = { price_plus: 'plus', price_pro: 'pro' } as const;
    const view = estimateView(facts, (price) => plans[price as keyof typeof plans] ?? null);
    expect(view).toMatchObject({ adjustment: 417, adjustmentTax: 79, adjustmentTotal: 496, total: 4066 });
    expect(view.lines).toEqual([
      {
        description: 'Credit for the unused time of 1 Plus Stack, from 2026-11-06 to 2026-12-01',
        amount: -4167,
        discount: -2084,
        tax: -396,
      },
      {
        description: 'Charge for 1 Pro Stack, from 2026-11-06 to 2026-12-01',
        amount: 5000,
        discount: 2500,
        tax: 475,
      },
    ]);
    // No processor id reaches the tenant.
    expect(JSON.stringify(view)).not.toContain('price_');
  });

  it('names the Stacks a line is for, and says nothing of a Plan it does not know', () => {
    const line = {
      quantity: 2,
      amount: 8000,
      discount: 0,
      tax: 0,
      periodStart: '2026-11-06T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
    };
    expect(changeLineText({ ...line, plan: 'standard' })).toBe(
      'Charge for 2 Standard Stacks, from 2026-11-06 to 2026-12-01',
    );
    expect(changeLineText({ ...line, plan: null, amount: -10 })).toBe(
      'Credit for the unused time of 2 Stacks, from 2026-11-06 to 2026-12-01',
    );
  });
});
