import { describe, expect, it } from 'vitest';
import {
  accountClosedEmail,
  moneyBackGrantedEmail,
  planChangeOutcomeEmail,
  waitlistCapacityEmail,
} from '#core/emails.ts';

// The tenant's emails whose words carry money (a refund, an adjustment, a price): each amount, its
// sign and its currency as the tenant reads them, in the text and the HTML alike.

const paragraphsOf = (text: string) => text.trimEnd().split('\n\n');

describe('the money-back confirmation', () => {
  it('says what was refunded, how many payments, that billing ended and the Stacks go after the export window', () => {
    const email = moneyBackGrantedEmail({ slug: 'acme', refundedAmount: 9000, currency: 'usd', refunds: 2 });
    expect(email.subject).toBe('Your money-back refund for acme is granted');
    expect(paragraphsOf(email.text)).toEqual([
      'Your money-back refund for acme is granted.',
      'We refunded US$90.00 (2 payments made in the 14-day window) to the card that paid; your bank shows it within a few business days.',
      'Your subscription has ended at once: nothing more will be billed.',
      'Your Stacks stop taking new work now and are torn down at the end of the export window. Export your data before then; the billing status in the app shows the date.',
      'The money-back refund can be used once per person: a new account you start later has none.',
      'Once your Stacks are torn down, you can start a new account with the same sign-in: a new slug, at the prices then offered.',
    ]);
    expect(email.text.endsWith('at the prices then offered.\n')).toBe(true);
    expect(email.html).toContain(
      '<p>We refunded US$90.00 (2 payments made in the 14-day window) to the card that paid; your bank shows it within a few business days.</p><p>Your subscription has ended at once',
    );
  });

  it('one payment is one payment; another currency is named by its code', () => {
    const email = moneyBackGrantedEmail({ slug: 'acme', refundedAmount: 4550, currency: 'eur', refunds: 1 });
    expect(email.text).toContain('We refunded EUR 45.50 (1 payment made in the 14-day window)');
  });

  it('nothing left to refund (an earlier run refunded it all) says so, naming no amount', () => {
    const email = moneyBackGrantedEmail({ slug: 'acme', refundedAmount: 0, currency: 'usd', refunds: 0 });
    expect(paragraphsOf(email.text)[1]).toBe(
      'Every payment made in the 14-day window had already been refunded.',
    );
    expect(email.text).not.toContain('US$');
  });
});

describe('the Plan Change outcome', () => {
  const base = {
    stackName: 's2.acme.stacks.test',
    fromPlan: 'standard',
    toPlan: 'pro',
    appUrl: 'http://app',
  } as const;

  it('completed with a charge: the amount on the next invoice', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: { amount: 1234, currency: 'usd' },
    });
    expect(email.subject).toBe('s2.acme.stacks.test now runs on the Pro Plan');
    expect(paragraphsOf(email.text)).toEqual([
      'Your Stack s2.acme.stacks.test moved from the Standard Plan to the Pro Plan.',
      'Your next regular invoice carries US$12.34 (after any discount, before tax) for the rest of this billing period on the new Plan.',
      'See the change and its history: http://app',
    ]);
    expect(email.html).toContain(
      '<p>Your Stack s2.acme.stacks.test moved from the Standard Plan to the Pro Plan.</p><p>',
    );
  });

  it('completed at no cost: a charge of zero, never a credit', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: { amount: 0, currency: 'usd' },
    });
    expect(email.text).toContain(
      'Your next regular invoice carries US$0.00 (after any discount, before tax) for the rest',
    );
  });

  it('completed with a credit: the amount credited, without a minus sign, in its currency', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: { amount: -500, currency: 'eur' },
    });
    expect(paragraphsOf(email.text)[1]).toBe(
      'EUR 5.00 (after any discount, before tax) for the rest of this billing period was credited to your account balance; it lowers your next invoice and is never paid out in cash.',
    );
  });

  it('completed with its tax: the three final figures, and the estimate’s beside them with why they differ', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: {
        amount: 417,
        tax: 79,
        total: 496,
        currency: 'eur',
        estimate: { amount: 420, tax: 80, total: 500 },
        explanation: 'Fewer days remained.',
      },
    });
    expect(paragraphsOf(email.text).slice(1, 3)).toEqual([
      'Your next regular invoice carries EUR 4.17 (after any discount) plus EUR 0.79 tax, EUR 4.96 in all for the rest of this billing period on the new Plan.',
      'The estimate shown when you confirmed was EUR 4.20 (after any discount) plus EUR 0.80 tax, EUR 5.00 in all. Fewer days remained.',
    ]);
    const credit = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: { amount: -417, tax: -79, total: -496, currency: 'eur' },
    });
    expect(paragraphsOf(credit.text)[1]).toBe(
      'EUR 4.17 (after any discount) plus EUR 0.79 tax, EUR 4.96 in all for the rest of this billing period was credited to your account balance; it lowers your next invoice and is never paid out in cash.',
    );
  });

  it('completed without a known adjustment names no amount', () => {
    const email = planChangeOutcomeEmail({ ...base, outcome: 'completed' });
    expect(paragraphsOf(email.text)).toEqual([
      'Your Stack s2.acme.stacks.test moved from the Standard Plan to the Pro Plan.',
      'See the change and its history: http://app',
    ]);
  });

  it('a move elsewhere names the location, and the IP address unless it is known unchanged', () => {
    const moved = (addressChanged?: boolean) =>
      paragraphsOf(
        planChangeOutcomeEmail({ ...base, outcome: 'completed', movedTo: 'eu-2a', addressChanged }).text,
      )[1];
    expect(moved(false)).toBe('It now runs in another location (eu-2a).');
    expect(moved(true)).toBe(
      'It now runs in another location (eu-2a), and its IP address changed: update any allow-list that names the old one.',
    );
    expect(moved(undefined)).toBe(moved(true));
  });

  it.each([
    [
      "rolled back: billing unchanged, our reason (never a Dispatcher's words), and a sentence that ends",
      'rolled_back',
      'The Plan Change of s2.acme.stacks.test was rolled back',
      [
        'The change of s2.acme.stacks.test from the Standard Plan to the Pro Plan could not be completed. A step of the move failed.',
        'The Stack stays on its previous Plan and billing is unchanged. You may confirm the change again; if it fails again, contact support with this change’s id.',
        'See the change and its history: http://app',
      ],
    ],
    [
      'expired: no place within 7 days, billing unchanged',
      'expired',
      'The Plan Change of s2.acme.stacks.test expired',
      [
        'No place for the Pro Plan became free within 7 days, so the change of s2.acme.stacks.test expired.',
        'The Stack stays on the Standard Plan and your billing is unchanged. You may ask for the change again at any time.',
        'See the change and its history: http://app',
      ],
    ],
  ] as const)('%s', (_, outcome, subject, paragraphs) => {
    const email = planChangeOutcomeEmail({ ...base, outcome });
    expect(email.subject).toBe(subject);
    expect(paragraphsOf(email.text)).toEqual(paragraphs);
  });

  it('a completed move elsewhere says the IP address changed, and the charge on the next invoice', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      movedTo: 'eu-2a',
      addressChanged: true,
      adjustment: { amount: 1234, currency: 'usd' },
    });
    expect(email.text).toContain('IP address changed');
    expect(email.text).toContain('US$12.34');
  });

  it('a completed move in place says nothing of an address, and a downgrade is a balance credit', () => {
    const email = planChangeOutcomeEmail({
      ...base,
      outcome: 'completed',
      adjustment: { amount: -500, currency: 'usd' },
    });
    expect(email.text).not.toContain('IP address');
    expect(email.text).toContain('credited to your account balance');
  });

  it('a completion the tenant was not billed for says so, and names no amount', () => {
    const email = planChangeOutcomeEmail({ ...base, outcome: 'completed', notBilled: true });
    expect(email.text).toContain('Nothing was billed for this change');
    expect(email.text).not.toMatch(/US\$|credited/);
  });

  it('a rollback gives our reason and says billing is unchanged; an expiry says so', () => {
    const rolledBack = planChangeOutcomeEmail({
      ...base,
      outcome: 'rolled_back',
      reasonCode: 'backup_failed',
    });
    expect(rolledBack.text).toContain('The final backup before the move failed.');
    expect(rolledBack.text).toContain('billing is unchanged');
    expect(planChangeOutcomeEmail({ ...base, outcome: 'expired' }).subject).toContain('expired');
  });
});

describe('the waitlist email', () => {
  it('names the Plan, the Home Region, the price of the day and the resources, once', () => {
    const email = waitlistCapacityEmail({
      plan: 'plus',
      homeRegion: 'eu',
      appUrl: 'http://app',
      monthlyPrice: 5500,
    });
    expect(email.subject).toBe('The Plus Plan is available');
    expect(paragraphsOf(email.text)).toEqual([
      'Good news: the Plus Plan can now be placed in your Home Region (eu).',
      'You asked to hear when it could. Places are not held for the waitlist, so check out soon if you still want it: http://app',
      'Plus: US$55 per month, 4 shared vCPU, 8 GB memory, 80 GB storage.',
      'You are receiving this email once because you joined the waitlist for this Plan.',
    ]);
    expect(email.html).toContain(
      '<p>Good news: the Plus Plan can now be placed in your Home Region (eu).</p>',
    );
  });

  it("without a price of the day, the catalog's", () => {
    const email = waitlistCapacityEmail({ plan: 'pro', homeRegion: 'eu', appUrl: 'http://app' });
    expect(email.text).toContain('Pro: US$60 per month, 8 shared vCPU, 16 GB memory, 160 GB storage.');
  });

  it('HTML escapes what it quotes', () => {
    const email = waitlistCapacityEmail({ plan: 'pro', homeRegion: '<eu>', appUrl: 'http://app/?a=1&b=2' });
    expect(email.html).toContain('Home Region (&lt;eu&gt;)');
    expect(email.html).toContain('http://app/?a=1&amp;b=2');
    expect(email.html).toMatch(/^<!doctype html><html><body style="[^"]+"><p>/);
    expect(email.html.endsWith('</p></body></html>')).toBe(true);
  });
});

describe('the account closed for good', () => {
  it('says nothing more is billed, the invoices stay readable, and the same sign-in can start a new account with a new slug', () => {
    const email = accountClosedEmail({ slug: 'acme', appUrl: 'https://app.example.test/' });
    expect(email.subject).toBe('Your account acme is closed');
    expect(paragraphsOf(email.text)).toEqual([
      'Your account acme is closed: its Stacks are torn down and nothing more will be billed.',
      'Your invoices and billing history stay readable in the app.',
      'You can start a new account at any time with the same sign-in: choose a new slug ("acme" stays with the closed account) and check out at the prices then offered. https://app.example.test/',
    ]);
    expect(accountClosedEmail({ slug: null, appUrl: 'u' }).subject).toBe('Your account is closed');
  });
});
