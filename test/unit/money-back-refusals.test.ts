import { describe, expect, it } from 'vitest';
import { MONEY_BACK_REFUSALS, MONEY_BACK_REMINDER, sameEmail } from '#core/money-back.ts';
import { refuse } from '#core/refusals/index.ts';
import { STATUS_OF_KIND } from '#http/refusal-status.ts';

// What each money-back refusal answers (status and words), and the address comparison, case by
// case: a refusal answered with another refusal's words would tell the operator the wrong fix.

const facts = {
  windowUntil: '2026-03-15T10:00:00.000Z',
  requestedAt: '2026-03-16T10:00:00.000Z',
  grantedAt: '2026-03-10T10:00:00.000Z',
  earlierSlug: 'acme-old',
  graceEndsAt: '2026-03-20T10:00:00.000Z',
};

describe('each refusal has its own status and words', () => {
  it.each([
    ['requested_in_future', 400, 'The request time (2026-03-16T10:00:00.000Z) is in the future'],
    ['email_mismatch', 403, "neither the account's billing address nor an administrator's"],
    [
      'already_used',
      409,
      'This tenant already used its money-back refund (granted 2026-03-10T10:00:00.000Z)',
    ],
    [
      'used_by_earlier_account',
      409,
      'This person already used the money-back refund with an earlier account ("acme-old") (granted 2026-03-10T10:00:00.000Z); it can be used once per person',
    ],
    [
      'account_past_due',
      409,
      'The account is past due: a payment failed and its grace ends 2026-03-20T10:00:00.000Z.',
    ],
    [
      'account_suspended',
      409,
      'The account is suspended: a payment failed and was not made within the past-due grace; the account closes 2026-03-20T10:00:00.000Z',
    ],
    ['decommissioning', 409, 'The account is already leaving (decommissioning)'],
    ['nothing_paid', 409, 'Nothing had been paid when the request was received'],
    [
      'window_passed',
      409,
      'The money-back window ended 2026-03-15T10:00:00.000Z (14 days after the first paid invoice); the request was received 2026-03-16T10:00:00.000Z.',
    ],
  ] as const)('%s: %i', (code, status, words) => {
    const answer = refuse(code, facts);
    expect(STATUS_OF_KIND[answer.kind]).toBe(status);
    expect(answer.message).toContain(words);
  });

  it('no two refusals say the same', () => {
    const messages = MONEY_BACK_REFUSALS.map((code) => refuse(code, facts).message);
    expect(new Set(messages).size).toBe(MONEY_BACK_REFUSALS.length);
  });

  it('a second grant names the first one only when its time is known', () => {
    expect(refuse('already_used', { grantedAt: null }).message).toBe(
      'This tenant already used its money-back refund; it can be used once per person.',
    );
  });
});

describe('addresses', () => {
  it('surrounding blanks do not count on either side', () => {
    expect(sameEmail('ada@example.com', '  Ada@Example.com ')).toBe(true);
    expect(sameEmail(' ada@example.com', 'ada@example.com')).toBe(true);
  });

  it('an address never matches a missing one, on either side', () => {
    expect(sameEmail('ada@example.com', null)).toBe(false);
    expect(sameEmail('ada@example.com', undefined)).toBe(false);
    expect(sameEmail(undefined, 'ada@example.com')).toBe(false);
  });
});

describe('the reminder shown wherever the refund is offered', () => {
  it('asks for the export first', () => {
    expect(MONEY_BACK_REMINDER).toMatch(/^Export your data first/);
  });
});
