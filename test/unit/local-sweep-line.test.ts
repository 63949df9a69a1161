import { describe, expect, it } from 'vitest';
import type { SweepSummary } from '../../functions/reconciler/run-sweep.ts';
import { sweepLine } from '../../lib/local/sweeper.ts';

const idle: SweepSummary = {
  intake: { applied: 0, duplicates: 0, unmatched: 0, failed: 0 },
  reconciled: 0,
  transitions: [],
  conflicts: 0,
  failed: 0,
  backedOff: 0,
  waitlistNotified: 0,
  homeRegionPlaceablePlans: 3,
  emailsSent: 0,
  emailsFailed: 0,
  emailsParked: 0,
  planChangesStarted: 0,
  planChangeStartsFailed: 0,
  indexItemsRead: 3,
  durationMs: 12,
};
const at = new Date('2030-01-02T03:04:05.000Z');

describe('the line npm start prints for a sweep', () => {
  it('an idle sweep prints nothing', () => {
    expect(sweepLine(idle, at)).toBeUndefined();
    // Reading items or meeting duplicates is not a change.
    expect(
      sweepLine({ ...idle, reconciled: 2, intake: { ...idle.intake, duplicates: 4 } }, at),
    ).toBeUndefined();
  });

  it('a sweep that changed something prints its counts (events applied, tenants moved, emails sent) in one line', () => {
    const line = sweepLine(
      {
        ...idle,
        intake: { ...idle.intake, applied: 4 },
        transitions: [{ tenantId: 't1', from: 'active', to: 'past-due', reason: 'payment_failed' }],
        emailsSent: 2,
      },
      at,
    );
    expect(line).toBe(
      'sweep (2030-01-02T03:04:05.000Z): 4 events applied, 1 tenant moved (active -> past-due), 2 emails sent',
    );
  });

  it('an email sent alone is a change; failures are counted when there are any', () => {
    expect(sweepLine({ ...idle, emailsSent: 1, waitlistNotified: 1, emailsFailed: 1, failed: 2 }, at)).toBe(
      'sweep (2030-01-02T03:04:05.000Z): 0 events applied, 0 tenants moved, 1 email sent, 1 waitlist entry told, 2 tenants failed, 1 email failed',
    );
  });

  it('many moved tenants are counted, not listed', () => {
    const transitions = Array.from({ length: 5 }, (_, i) => ({
      tenantId: `t${i}`,
      from: 'past-due',
      to: 'suspended',
      reason: 'past_due_grace_elapsed',
    }));
    const line = sweepLine({ ...idle, transitions }, at) ?? '';
    expect(line).toContain('5 tenants moved,');
    expect(line).not.toContain('t1');
    expect(line.split('\n')).toHaveLength(1);
  });
});
