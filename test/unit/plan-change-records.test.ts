import { describe, expect, it } from 'vitest';
import { planChangeOutcomeEmail } from '#core/emails.ts';
import {
  adjustmentExplanation,
  expiryOf,
  isCancellable,
  PLAN_CHANGE_STATUSES,
  recoveryMessage,
} from '#core/plan-change.ts';
import { PLANS } from '#core/plans.ts';
import { renderDesiredState, stackOnPlan } from '#core/stacks.ts';
import { moreSpecific } from '../../lib/local/http-adapter.ts';

const stack = stackOnPlan({
  stackId: 'stk_1',
  name: 's1.acme.stacks.test',
  plan: 'standard',
  location: 'eu-1a',
  createdAt: '2026-11-01T00:00:00.000Z',
});

describe('a Plan Change in the desired state', () => {
  it('pauses admission and carries the step with the replacement Plan', () => {
    const desired = renderDesiredState({
      ...stack,
      operation: {
        kind: 'plan_change',
        id: 'pc_1',
        step: 'switch',
        target: { plan: 'pro', location: 'eu-2a' },
      },
    });
    expect(desired.admission).toBe('paused');
    expect(desired.plan).toBe('standard');
    expect(desired.operation).toEqual({
      id: 'pc_1',
      kind: 'plan_change',
      step: 'switch',
      target: { plan: 'pro', location: 'eu-2a', resources: PLANS.pro.resources, run_cap: PLANS.pro.runCap },
    });
  });

  it('keeps admission open without an operation, and closed after a teardown', () => {
    expect(renderDesiredState(stack).admission).toBe('open');
    expect(renderDesiredState(stack).operation).toBeUndefined();
    const torn = renderDesiredState({
      ...stack,
      lifecycle: 'torn_down',
      operation: {
        kind: 'plan_change',
        id: 'pc_1',
        step: 'drain',
        target: { plan: 'pro', location: 'eu-1a' },
      },
    });
    expect(torn.admission).toBe('closed');
    expect(torn.operation).toBeUndefined();
  });
});

describe('the recovery message of each status', () => {
  it('says what the tenant can do, and offers a cancel only while the change waits', () => {
    for (const status of PLAN_CHANGE_STATUSES) {
      const message = recoveryMessage(status);
      expect(message.length).toBeGreaterThan(20);
      expect(/cancel it|still cancel/.test(message)).toBe(isCancellable(status));
    }
  });
});

describe('the final adjustment beside the estimate', () => {
  const times = { confirmedAt: '2026-11-01T00:00:00.000Z', healthyAt: '2026-11-01T02:00:00.000Z' };
  it('says they are equal when they are', () => {
    expect(adjustmentExplanation({ estimate: 1200, final: 1200, ...times })).toBe(
      'The final adjustment equals the estimate.',
    );
  });
  it('explains a smaller final figure by the later proration moment', () => {
    expect(adjustmentExplanation({ estimate: 1200, final: 1190, ...times })).toContain(
      'fewer days of the billing period remained',
    );
    expect(adjustmentExplanation({ estimate: -800, final: -790, ...times })).toContain('fewer days');
  });
  it('says when there was no estimate', () => {
    expect(adjustmentExplanation({ estimate: null, final: 5, ...times })).toContain('could not estimate');
  });
  it('says nothing was billed when the account closed before the commit, whatever the estimate', () => {
    expect(
      adjustmentExplanation({ estimate: 1200, final: 0, ...times, notBilled: 'account_closed' }),
    ).toMatch(/^Not billed: the account was closed before the change was committed/);
  });
});

describe('a queued change expires 7 days after confirmation', () => {
  it('is a deadline in the data', () => {
    expect(expiryOf(new Date('2026-11-01T10:00:00.000Z')).toISOString()).toBe('2026-11-08T10:00:00.000Z');
  });
});

describe('the outcome emails', () => {
  const base = {
    stackName: 's1.acme.stacks.test',
    fromPlan: 'standard',
    toPlan: 'pro',
    appUrl: 'http://app',
  } as const;
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
  it('a rollback gives the reason and says billing is unchanged; an expiry says so', () => {
    expect(
      planChangeOutcomeEmail({ ...base, outcome: 'rolled_back', reason: 'the final backup failed.' }).text,
    ).toContain('billing is unchanged');
    expect(planChangeOutcomeEmail({ ...base, outcome: 'expired' }).subject).toContain('expired');
  });
});

describe('local route matching, as API Gateway does', () => {
  it('prefers a literal segment over a parameter, whatever the order', () => {
    expect(moreSpecific('/v1/plan-changes/export', '/v1/plan-changes/{changeId}')).toBe(true);
    expect(moreSpecific('/v1/plan-changes/{changeId}', '/v1/plan-changes/export')).toBe(false);
  });
});
