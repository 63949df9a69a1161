import { describe, expect, it } from 'vitest';
import { CHECKOUT_LIFETIME_SECONDS, checkoutExpiry, mayStartFirstCheckout } from '#core/checkout.ts';
import { escapeHtml } from '#core/html.ts';
import { leavingRefusal } from '#core/leaving.ts';
import { Refusal } from '#core/refusal.ts';
import { idempotencyKeyReused, requestInProgress } from '#core/refusals/common.ts';
import { expectRefusal } from '../support/refusals.ts';

describe('the first checkout', () => {
  it('holds its reservation 31 minutes (one above the processor’s minimum session lifetime)', () => {
    expect(CHECKOUT_LIFETIME_SECONDS).toBe(31 * 60);
    expect(checkoutExpiry(new Date('2026-05-01T10:00:00.000Z')).toISOString()).toBe(
      '2026-05-01T10:31:00.000Z',
    );
  });

  it('may start only for a provisioning tenant without a subscription', () => {
    expect(mayStartFirstCheckout('provisioning', false)).toBe(true);
    expect(mayStartFirstCheckout('provisioning', true)).toBe(false);
    for (const state of ['active', 'past-due', 'suspended', 'decommissioning'] as const)
      expect(mayStartFirstCheckout(state, false), state).toBe(false);
  });
});

describe('a leaving tenant', () => {
  it('is refused anything new, told until when it can still read and export', () => {
    const refusal = leavingRefusal({
      billingState: 'decommissioning',
      teardownAt: '2026-06-01T00:00:00.000Z',
    });
    expectRefusal(refusal, {
      status: 409,
      code: 'account_closing',
      message:
        'This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data until 2026-06-01T00:00:00.000Z.',
      extra: { teardownAt: '2026-06-01T00:00:00.000Z' },
    });
  });

  it('without a teardown time yet: until teardown', () => {
    const refusal = leavingRefusal({ billingState: 'decommissioning' });
    expect(refusal?.message).toMatch(/export your data until teardown\.$/);
    expect(refusal?.extra).toEqual({ teardownAt: null });
  });

  it('any other state is not refused by it', () => {
    for (const billingState of ['provisioning', 'active', 'past-due', 'suspended'] as const)
      expect(leavingRefusal({ billingState, teardownAt: '2026-06-01T00:00:00.000Z' })).toBeUndefined();
  });
});

describe('a refusal', () => {
  it('carries its kind, code, message, field and extra fields', () => {
    const refusal = new Refusal('invalid', 'bad_plan', 'Name a Plan.', {
      field: 'plan',
      extra: { availablePlans: [] },
    });
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal).toMatchObject({
      name: 'Refusal',
      kind: 'invalid',
      code: 'bad_plan',
      message: 'Name a Plan.',
      field: 'plan',
      extra: { availablePlans: [] },
    });
    expect(new Refusal('conflict', 'x', 'y')).toMatchObject({ field: undefined, extra: {} });
  });

  it('of an Idempotency-Key: reused with another body, or still in progress', () => {
    expect(idempotencyKeyReused()).toMatchObject({
      kind: 'conflict',
      code: 'idempotency_key_reused',
      message: 'This Idempotency-Key was used with another request body: use a new key for a new request.',
    });
    expect(requestInProgress()).toMatchObject({
      kind: 'conflict',
      code: 'request_in_progress',
      message: 'This request is being handled: repeat it in a few seconds.',
    });
  });
});

describe('text placed in HTML', () => {
  it('escapes the five characters that matter, and nothing else', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
    expect(escapeHtml('plain text: 100% safe')).toBe('plain text: 100% safe');
  });
});
