import { describe, expect, it } from 'vitest';
import { isFoundingCompletion, lockAtActivation } from '#core/price-lock.ts';
import { carriedFacts, newAccountOpening, newAccountText } from '#core/returning.ts';

// Returning customers: when a new account becomes possible, in which words, and what it carries
// from the person's earlier account (no Founding Price Lock, no second money-back refund).

const left = {
  billingState: 'decommissioning' as const,
  slug: 'acme',
  teardownAt: '2026-05-01T00:00:00.000Z',
};

describe('when a new account can be started', () => {
  it('not while the account has not left', () => {
    expect(newAccountOpening({ billingState: 'active', slug: 'acme' })).toBeUndefined();
    expect(newAccountOpening({ billingState: 'past-due', slug: 'acme' })).toBeUndefined();
  });

  it('from the teardown while the account still serves or can be exported; at once when torn down', () => {
    expect(newAccountOpening(left)).toEqual({ possible: false, from: left.teardownAt });
    const torn = { ...left, tornDownAt: '2026-05-01T00:01:00.000Z' };
    expect(newAccountOpening(torn)).toEqual({ possible: true, from: torn.tornDownAt });
  });

  it('a close asked for and not yet carried out: soon (no date)', () => {
    expect(newAccountOpening({ billingState: 'provisioning', slug: null, closeRequestedAt: 'x' })).toEqual({
      possible: false,
      from: null,
    });
  });

  it('says each case in words, with the date when there is one', () => {
    expect(newAccountText(left, { possible: false, from: left.teardownAt })).toContain(
      `torn down on ${left.teardownAt}`,
    );
    expect(newAccountText(left, { possible: true, from: 'x' })).toContain('same sign-in');
    expect(newAccountText({ ...left, slug: null }, { possible: false, from: null })).toContain(
      'Within a minute',
    );
  });
});

describe('what a new account carries', () => {
  it('an account that paid: subscribed before; one closed before paying: not', () => {
    expect(carriedFacts({ tenantId: 't1', slug: 'a', leftBy: 'cancelled_in_portal' })).toEqual({
      previousTenantId: 't1',
      previousSlug: 'a',
      subscribedBefore: true,
    });
    expect(carriedFacts({ tenantId: 't1', slug: null, leftBy: 'closed_by_tenant' }).subscribedBefore).toBe(
      false,
    );
    expect(
      carriedFacts({ tenantId: 't1', slug: null, leftBy: 'closed_by_tenant', firstPaidAt: 'x' })
        .subscribedBefore,
    ).toBe(true);
  });

  it('carries the facts of the accounts before it, so a chain forgets nothing', () => {
    const first = carriedFacts({
      tenantId: 't1',
      slug: 'a',
      leftBy: 'refund_granted',
      moneyBack: { grantedAt: '2026-01-02T00:00:00.000Z' },
    });
    expect(first.moneyBack).toEqual({ slug: 'a', grantedAt: '2026-01-02T00:00:00.000Z' });
    const second = carriedFacts({ tenantId: 't2', slug: 'b', leftBy: 'closed_by_tenant', returning: first });
    expect(second).toEqual({
      previousTenantId: 't2',
      previousSlug: 'b',
      subscribedBefore: true,
      moneyBack: { slug: 'a', grantedAt: '2026-01-02T00:00:00.000Z' },
    });
    // A claim never completed is no grant.
    expect(
      carriedFacts({ tenantId: 't1', slug: 'a', leftBy: 'refund_granted', moneyBack: {} }).moneyBack,
    ).toBeUndefined();
  });

  it('a person who paid before is never founding again; one who never paid is as any first subscriber', () => {
    const before = '2026-01-01T00:00:00.000Z';
    const open = '2026-06-01T00:00:00.000Z';
    expect(isFoundingCompletion(before, open)).toBe(true);
    expect(isFoundingCompletion(before, open, true)).toBe(false);
    expect(isFoundingCompletion(before, undefined, true)).toBe(false);
    const lock = (subscribedBefore: boolean) =>
      lockAtActivation({
        completedAt: before,
        openSignupAt: undefined,
        plan: 'standard',
        monthlyPrice: { amount: 1000, currency: 'usd' },
        now: new Date(before),
        subscribedBefore,
      });
    expect(lock(true)).toBeUndefined();
    expect(lock(false)?.state).toBe('locked');
  });
});
