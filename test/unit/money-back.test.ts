import { describe, expect, it } from 'vitest';
import {
  MONEY_BACK_REFUSALS,
  type MoneyBackRequest,
  moneyBackCharges,
  moneyBackRefusal,
  moneyBackWindow,
  sameEmail,
  windowOpening,
} from '#core/money-back.ts';
import { refuse } from '#core/refusals/index.ts';
import { STATUS_OF_KIND } from '#http/refusal-status.ts';

const HOUR = 3_600_000;
const PAID = '2026-03-01T10:00:00.000Z';
const paid = Date.parse(PAID);
const at = (ms: number) => new Date(ms);

/** A request that is granted: every refusal below changes one thing of it. */
const grantable = (changes: Partial<MoneyBackRequest> = {}): MoneyBackRequest => ({
  billingState: 'active',
  alreadyGranted: false,
  firstPaidAt: PAID,
  requestedAt: at(paid + 13 * 24 * HOUR),
  now: at(paid + 15 * 24 * HOUR),
  emailMatches: true,
  ...changes,
});

describe('moneyBackWindow', () => {
  it('runs from the first paid invoice until exactly 14 × 24 hours later', () => {
    expect(moneyBackWindow(PAID)).toEqual({ from: PAID, until: '2026-03-15T10:00:00.000Z' });
    // Across a daylight-saving change nothing shifts: hours, not calendar days.
    expect(moneyBackWindow('2026-03-20T23:30:00+01:00')).toEqual({
      from: '2026-03-20T22:30:00.000Z',
      until: '2026-04-03T22:30:00.000Z',
    });
  });

  it('refuses what is not a time', () => {
    expect(() => moneyBackWindow('soon')).toThrow(/not a time/);
  });
});

describe('the charges a money-back refunds, matched by identity', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const invoice = (id: string, paidMs: number, createdMs = paidMs) => ({
    id,
    paidAt: iso(paidMs),
    createdAt: iso(createdMs),
  });
  const until = paid + 14 * 24 * HOUR;

  it('the window opens at the first invoice settled above zero, whatever order they are listed in', () => {
    const first = invoice('in_first', paid);
    const later = invoice('in_later', paid + 3 * 24 * HOUR);
    expect(windowOpening([later, first])).toBe(first);
    expect(moneyBackCharges([later, first])?.window).toEqual(moneyBackWindow(PAID));
    // Paid in the same second: the one made first, then the lowest id.
    const twin = invoice('in_a', paid, paid + 5);
    expect(windowOpening([twin, first])).toBe(first);
    expect(windowOpening([invoice('in_b', paid), invoice('in_a', paid)])?.id).toBe('in_a');
    expect(windowOpening([])).toBeUndefined();
    expect(moneyBackCharges([])).toBeNull();
  });

  it('covers the opening invoice and every other paid in the window, ends included; one second after is out', () => {
    const opening = invoice('in_open', paid);
    const proration = invoice('in_added_stack', paid + 2 * 24 * HOUR);
    const upgrade = invoice('in_upgrade', paid + 5 * 24 * HOUR);
    const atTheEnd = invoice('in_end', until);
    const late = invoice('in_late', until + 1000);
    const charges = moneyBackCharges([late, atTheEnd, upgrade, proration, opening]);
    expect(charges?.opening).toBe(opening);
    expect(charges?.charges.map((c) => c.id).sort()).toEqual(
      ['in_added_stack', 'in_end', 'in_open', 'in_upgrade'].sort(),
    );
  });
});

describe('moneyBackRefusal', () => {
  it('grants a request made in the window, by the account, once, while active', () => {
    expect(moneyBackRefusal(grantable())).toBeUndefined();
  });

  it('refuses a past-due or suspended account (only active is refunded), unless finishing its own grant under way', () => {
    expect(moneyBackRefusal(grantable({ billingState: 'past-due' }))).toBe('account_past_due');
    expect(moneyBackRefusal(grantable({ billingState: 'suspended' }))).toBe('account_suspended');
    for (const billingState of ['past-due', 'suspended'] as const)
      expect(
        moneyBackRefusal(grantable({ billingState, grantUnderway: true })),
        billingState,
      ).toBeUndefined();
    // Before the past-due or suspended reason: nothing said about a window that is not the question.
    expect(
      moneyBackRefusal(
        grantable({
          billingState: 'past-due',
          requestedAt: at(paid + 20 * 24 * HOUR),
          now: at(paid + 20 * 24 * HOUR),
        }),
      ),
    ).toBe('account_past_due');
  });

  it('once per person: an earlier account of the same person used it, so this one is refused', () => {
    expect(moneyBackRefusal(grantable({ grantedToEarlierAccount: true }))).toBe('used_by_earlier_account');
    expect(moneyBackRefusal(grantable({ grantedToEarlierAccount: false }))).toBeUndefined();
  });

  it('the window is inclusive: exactly 14 × 24 hours after the payment is in, one millisecond later is out', () => {
    const edge = paid + 14 * 24 * HOUR;
    expect(moneyBackRefusal(grantable({ requestedAt: at(edge) }))).toBeUndefined();
    expect(moneyBackRefusal(grantable({ requestedAt: at(edge + 1) }))).toBe('window_passed');
    // At the payment itself too.
    expect(moneyBackRefusal(grantable({ requestedAt: at(paid) }))).toBeUndefined();
  });

  it('judges the window at the time support received the email, not when the operator acts', () => {
    const requestedAt = at(paid + 13 * 24 * HOUR);
    expect(moneyBackRefusal(grantable({ requestedAt, now: at(paid + 40 * 24 * HOUR) }))).toBeUndefined();
    expect(moneyBackRefusal(grantable({ requestedAt: at(paid + 15 * 24 * HOUR) }))).toBe('window_passed');
  });

  it('refuses a request time in the future (later than now)', () => {
    const now = at(paid + 2 * 24 * HOUR);
    expect(moneyBackRefusal(grantable({ now, requestedAt: at(now.getTime() + 1) }))).toBe(
      'requested_in_future',
    );
    expect(moneyBackRefusal(grantable({ now, requestedAt: now }))).toBeUndefined();
  });

  it('refuses an address that is not the account’s', () => {
    expect(moneyBackRefusal(grantable({ emailMatches: false }))).toBe('email_mismatch');
  });

  it('refuses a second grant, ever', () => {
    expect(moneyBackRefusal(grantable({ alreadyGranted: true }))).toBe('already_used');
    expect(
      moneyBackRefusal(
        grantable({ alreadyGranted: true, billingState: 'decommissioning', grantUnderway: true }),
      ),
    ).toBe('already_used');
  });

  it('refuses a leaving tenant, unless it is finishing its own grant under way', () => {
    expect(moneyBackRefusal(grantable({ billingState: 'decommissioning' }))).toBe('decommissioning');
    expect(
      moneyBackRefusal(grantable({ billingState: 'decommissioning', grantUnderway: true })),
    ).toBeUndefined();
  });

  it('refuses when nothing was paid: no invoice above zero, or only after the request', () => {
    expect(moneyBackRefusal(grantable({ firstPaidAt: null }))).toBe('nothing_paid');
    expect(moneyBackRefusal(grantable({ requestedAt: at(paid - 1) }))).toBe('nothing_paid');
  });

  it('checks in a fixed order: future time, address, used, leaving, nothing paid, window', () => {
    const everything = grantable({
      requestedAt: at(paid + 30 * 24 * HOUR),
      now: at(paid + 20 * 24 * HOUR),
      emailMatches: false,
      alreadyGranted: true,
      billingState: 'decommissioning',
    });
    expect(moneyBackRefusal(everything)).toBe('requested_in_future');
    const pastAll = { ...everything, now: at(paid + 40 * 24 * HOUR) };
    expect(moneyBackRefusal(pastAll)).toBe('email_mismatch');
    expect(moneyBackRefusal({ ...pastAll, emailMatches: true })).toBe('already_used');
    expect(moneyBackRefusal({ ...pastAll, emailMatches: true, alreadyGranted: false })).toBe(
      'decommissioning',
    );
    expect(
      moneyBackRefusal({
        ...pastAll,
        emailMatches: true,
        alreadyGranted: false,
        billingState: 'active',
        firstPaidAt: null,
      }),
    ).toBe('nothing_paid');
    expect(
      moneyBackRefusal({ ...pastAll, emailMatches: true, alreadyGranted: false, billingState: 'active' }),
    ).toBe('window_passed');
  });
});

describe('refusal messages and addresses', () => {
  it('every refusal says why, with a 4xx status', () => {
    for (const code of MONEY_BACK_REFUSALS) {
      const { kind, message } = refuse(code, {
        windowUntil: '2026-03-15T10:00:00.000Z',
        requestedAt: '2026-03-16T10:00:00.000Z',
        grantedAt: '2026-03-10T10:00:00.000Z',
      });
      expect(STATUS_OF_KIND[kind], code).toBeGreaterThanOrEqual(400);
      expect(STATUS_OF_KIND[kind], code).toBeLessThan(500);
      expect(message.length, code).toBeGreaterThan(20);
    }
    expect(refuse('window_passed', { windowUntil: 'W', requestedAt: 'R' }).message).toContain('ended W');
  });

  it('compares addresses without case or surrounding blanks, and nothing matches a missing one', () => {
    expect(sameEmail(' Ada@Example.COM ', 'ada@example.com')).toBe(true);
    expect(sameEmail('ada@example.com', 'ada@example.org')).toBe(false);
    expect(sameEmail(null, 'ada@example.com')).toBe(false);
    expect(sameEmail(undefined, undefined)).toBe(false);
  });
});
