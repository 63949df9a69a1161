import { describe, expect, it } from 'vitest';
import { EXPORT_BUILD_LIMIT_HOURS } from '#core/exports.ts';
import {
  DISPATCHER_STEP_LIMIT_HOURS,
  DRAIN_LIMIT_HOURS,
  PLAN_CHANGE_STATUSES,
  QUEUED_EXPIRY_DAYS,
} from '#core/plan-change.ts';
import {
  EXPORT_FAILURE_TEXT,
  EXPORT_FAILURES,
  exportFailureText,
  GUIDE_CLEARED_REASONS,
  guideClearedReason,
  PLAN_CHANGE_REASON_TEXT,
  PLAN_CHANGE_REASONS,
  planChangeReasonOf,
  planChangeReasonText,
  stepFailureReason,
  VALIDATION_FAILURE_TEXT,
  VALIDATION_FAILURES,
  validationFailureText,
} from '#core/tenant-reasons.ts';

/** What no tenant-facing text may carry: storage locators, provider identifiers, operators, processor ids. */
const FORBIDDEN = /s3:\/\/|arn:|ops-|oncall|\b(sub|cus|si|pi|in|price|prod)_[A-Za-z0-9]{6,}|https?:\/\//;

describe('the tenant reason vocabulary is closed and complete', () => {
  it('every code has a text, and every text has what failed, what it means for billing, and what to do next', () => {
    const all = [
      ...PLAN_CHANGE_REASONS.map((code) => PLAN_CHANGE_REASON_TEXT[code]),
      ...EXPORT_FAILURES.map((code) => EXPORT_FAILURE_TEXT[code]),
      ...VALIDATION_FAILURES.map((code) => VALIDATION_FAILURE_TEXT[code]),
    ];
    expect(Object.keys(PLAN_CHANGE_REASON_TEXT).sort()).toEqual([...PLAN_CHANGE_REASONS].sort());
    expect(Object.keys(EXPORT_FAILURE_TEXT).sort()).toEqual([...EXPORT_FAILURES].sort());
    expect(Object.keys(VALIDATION_FAILURE_TEXT).sort()).toEqual([...VALIDATION_FAILURES].sort());
    for (const reason of all) {
      expect(reason.what).toMatch(/^[A-Z].*\.$/);
      expect(reason.billing).toMatch(/^[A-Z].*\.$/);
      expect(reason.next).toMatch(/^[A-Z].*\.$/);
    }
  });

  it("each lookup answers its table's three parts as one text (what, billing, next)", () => {
    const lookups = [
      [PLAN_CHANGE_REASONS, PLAN_CHANGE_REASON_TEXT, planChangeReasonText],
      [EXPORT_FAILURES, EXPORT_FAILURE_TEXT, exportFailureText],
      [VALIDATION_FAILURES, VALIDATION_FAILURE_TEXT, validationFailureText],
    ] as const;
    for (const [codes, table, text] of lookups)
      for (const code of codes) {
        const reason = (table as Record<string, { what: string; billing: string; next: string }>)[code];
        expect((text as (code: string) => string)(code)).toBe(
          `${reason?.what} ${reason?.billing} ${reason?.next}`,
        );
      }
  });

  it('no text carries a storage locator, a provider identifier, an operator or a processor id', () => {
    for (const text of [
      ...PLAN_CHANGE_REASONS.map(planChangeReasonText),
      ...EXPORT_FAILURES.map(exportFailureText),
      ...VALIDATION_FAILURES.map(validationFailureText),
    ])
      expect(text).not.toMatch(FORBIDDEN);
  });

  it('every Plan Change that ended without moving says billing is unchanged (and, but superseded, the Plan too)', () => {
    for (const code of PLAN_CHANGE_REASONS.filter((c) => !c.startsWith('completed')))
      expect(PLAN_CHANGE_REASON_TEXT[code].billing).toBe(
        code === 'superseded'
          ? 'This change moved nothing, and billing is unchanged by it.'
          : 'The Stack stays on its previous Plan and billing is unchanged.',
      );
  });

  it('the texts name the limits the rules apply', () => {
    expect(planChangeReasonText('drain_timed_out')).toContain(`${DRAIN_LIMIT_HOURS} hours`);
    for (const step of ['backup', 'switch', 'verify'] as const)
      expect(planChangeReasonText(stepFailureReason(step, 'no_report'))).toContain(
        `${DISPATCHER_STEP_LIMIT_HOURS} hours`,
      );
    expect(planChangeReasonText('no_capacity_expired')).toContain(`${QUEUED_EXPIRY_DAYS} days`);
    expect(exportFailureText('build_timed_out')).toContain(`${EXPORT_BUILD_LIMIT_HOURS} hours`);
  });
});

describe('a Dispatcher step failure maps to the step’s reason', () => {
  it('by the step and whether it reported, whatever the Dispatcher wrote', () => {
    expect(stepFailureReason('backup', 'failed')).toBe('backup_failed');
    expect(stepFailureReason('switch', 'failed')).toBe('switch_failed');
    expect(stepFailureReason('verify', 'failed')).toBe('verify_failed');
    expect(stepFailureReason('backup', 'no_report')).toBe('backup_timed_out');
    expect(stepFailureReason('switch', 'no_report')).toBe('switch_timed_out');
    expect(stepFailureReason('verify', 'no_report')).toBe('verify_timed_out');
    for (const step of ['backup', 'switch', 'verify'] as const)
      for (const how of ['failed', 'no_report'] as const)
        expect(PLAN_CHANGE_REASONS).toContain(stepFailureReason(step, how));
  });
});

describe('the reason a Plan Change shows', () => {
  it('is the stored code; a record without one shows the reason its status implies, never its stored text', () => {
    expect(planChangeReasonOf({ status: 'rolled_back', reasonCode: 'verify_failed' })).toBe('verify_failed');
    expect(planChangeReasonOf({ status: 'rolled_back' })).toBe('move_failed');
    expect(planChangeReasonOf({ status: 'expired' })).toBe('no_capacity_expired');
    expect(planChangeReasonOf({ status: 'cancelled' })).toBe('cancelled');
    expect(planChangeReasonOf({ status: 'superseded' })).toBe('superseded');
    expect(planChangeReasonOf({ status: 'completed' })).toBe('completed');
    expect(planChangeReasonOf({ status: 'completed', notBilled: true })).toBe('completed_not_billed');
  });

  it('is null while the change runs, unless a roll back was decided', () => {
    for (const status of PLAN_CHANGE_STATUSES.filter((s) =>
      ['waiting_for_capacity', 'waiting_for_work', 'preparing', 'switching', 'verifying'].includes(s),
    )) {
      expect(planChangeReasonOf({ status })).toBeNull();
      expect(planChangeReasonOf({ status, reasonCode: 'backup_failed' })).toBe('backup_failed');
    }
  });
});

describe('the reason a cleared Guide selection shows', () => {
  it('is one of ours; a clearing kept with a Dispatcher’s words shows as validation_failed', () => {
    for (const reason of GUIDE_CLEARED_REASONS) expect(guideClearedReason(reason)).toBe(reason);
    expect(guideClearedReason('validation_failed: disk full at s3://acme-backups-prod/x')).toBe(
      'validation_failed',
    );
  });
});
