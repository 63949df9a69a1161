import { describe, expect, it } from 'vitest';
import {
  type ConfirmRefusal,
  confirmRefusals,
  isInfrastructureOperation,
  isTerminal,
  PLAN_CHANGE_STATUSES,
  type PlanChangeStatus,
  recoveryMessage,
} from '#core/plan-change.ts';
import type { StoredStack } from '#store/stacks.ts';
import type { Tenant } from '#store/tenants.ts';
import { confirmRefusal } from '../../functions/plan-changes/preview.ts';

// What a Plan Change tells the tenant for each status and each refusal: one text per case, so that
// no status or refusal borrows another's words.

describe('the recovery message of each status', () => {
  it('is its own, except for the three steps carried out on the Stack, which say the same', () => {
    const carriedOut: PlanChangeStatus[] = ['preparing', 'switching', 'verifying'];
    const others = PLAN_CHANGE_STATUSES.filter((status) => !carriedOut.includes(status));
    const messages = others.map(recoveryMessage);
    expect(new Set(messages).size).toBe(others.length);
    for (const status of carriedOut) {
      expect(recoveryMessage(status)).toBe(recoveryMessage('preparing'));
      expect(messages).not.toContain(recoveryMessage(status));
    }
  });
});

describe('the text of each confirmation refusal', () => {
  it('is its own, says what to do, and is a conflict with its own code', () => {
    const codes: ConfirmRefusal[] = [
      'account_closing',
      'billing_overdue',
      'cancellation_scheduled',
      'operation_in_progress',
      'plan_unchanged',
      'stack_not_running',
      'subscription_not_active',
    ];
    const tenant = { billingState: 'past-due', teardownAt: '2026-12-01T00:00:00.000Z' } as Tenant;
    const stack = { lifecycle: 'decommissioning' } as StoredStack;
    const refusals = codes.map((code) => confirmRefusal(code, tenant, stack));
    expect(refusals.map((refusal) => refusal.code)).toEqual(codes);
    for (const refusal of refusals) expect(refusal.kind, refusal.code).toBe('conflict');
    const texts = refusals.map((refusal) => refusal.message);
    expect(new Set(texts).size).toBe(texts.length);
    for (const refusal of refusals) expect(refusal.message.length, refusal.code).toBeGreaterThan(30);
    expect(refusals[5]?.message).toBe('This Stack is decommissioning: only a running Stack can change Plan.');
  });

  it('a Stack that is not running is refused as such, and only as such', () => {
    for (const stackLifecycle of ['decommissioning', 'torn_down'] as const)
      expect(
        confirmRefusals({
          billingState: 'active',
          subscriptionActive: true,
          cancelScheduled: false,
          stackLifecycle,
          currentPlan: 'plus',
          requestedPlan: 'pro',
          openChanges: [],
        }),
      ).toEqual(['stack_not_running']);
  });
});

describe('statuses', () => {
  it.each<[string, (status: PlanChangeStatus) => boolean, PlanChangeStatus[]]>([
    [
      'the ended ones are completed, rolled back, expired, superseded and cancelled',
      isTerminal,
      ['completed', 'rolled_back', 'expired', 'superseded', 'cancelled'],
    ],
    [
      'an infrastructure operation runs from Waiting for Work until the change ends',
      isInfrastructureOperation,
      ['waiting_for_work', 'preparing', 'switching', 'verifying'],
    ],
  ])('%s', (_, holds, statuses) => {
    expect(PLAN_CHANGE_STATUSES.filter(holds)).toEqual(statuses);
  });
});
