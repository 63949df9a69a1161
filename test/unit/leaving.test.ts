import { describe, expect, it } from 'vitest';
import { cancellationScheduled, cancellationScheduledRefusal, leavingRefusal } from '#core/leaving.ts';

const now = new Date('2026-03-10T12:00:00.000Z');
const active = { billingState: 'active' as const };
const swept = {
  billingState: 'decommissioning' as const,
  leftBy: 'cancelled_in_portal',
  teardownAt: '2026-03-31T00:00:00.000Z',
};

describe('a scheduled cancellation', () => {
  it('is scheduled while the processor says so, before the sweep has seen it', () => {
    expect(cancellationScheduled(active, true, now)).toBe(true);
    expect(cancellationScheduled(active, false, now)).toBe(false);
  });

  it('stays scheduled after the sweep moved the tenant for it, until its teardown on the Clock', () => {
    expect(cancellationScheduled(swept, false, now)).toBe(true);
    expect(cancellationScheduled(swept, false, new Date('2026-03-30T23:59:59.999Z'))).toBe(true);
    expect(cancellationScheduled(swept, false, new Date(swept.teardownAt))).toBe(false);
  });

  it('a tenant leaving for another cause has none scheduled: its refusal is the closing', () => {
    for (const leftBy of ['refund_granted', 'suspended_grace_elapsed', 'closed_by_tenant'])
      expect(cancellationScheduled({ ...swept, leftBy }, false, now)).toBe(false);
    expect(leavingRefusal(swept)?.code).toBe('account_closing');
  });

  it('its refusal names it, says what stays possible, and when the Stacks go', () => {
    const refusal = cancellationScheduledRefusal(swept, 'no Stack can be added');
    expect([refusal.kind, refusal.code]).toEqual(['conflict', 'cancellation_scheduled']);
    expect(refusal.message).toContain('no Stack can be added');
    expect(refusal.message).toContain('export');
    expect(refusal.extra).toEqual({ teardownAt: swept.teardownAt });
  });
});
