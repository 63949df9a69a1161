import type { EmailContent } from '#core/emails.ts';
import {
  adjustmentExplanation,
  applyPlanChangeEvent,
  isCancellable,
  isTerminal,
  type PlanChangeEvent,
  type PlanChangeExecution,
  type PlanChangeStatus,
  recoveryMessage,
} from '#core/plan-change.ts';
import { type PlanChangeReason, planChangeReasonOf, planChangeReasonText } from '#core/tenant-reasons.ts';
import { releaseHoldWrite } from '#store/capacity.ts';
import { outboxPut } from '#store/outbox.ts';
import { changeHolder, getPlanChange, type PlanChange, planChangeUpdate } from '#store/plan-changes.ts';
import { getStack, planChangeStackWrite, type StoredStack } from '#store/stacks.ts';
import { getTenant, type Tenant } from '#store/tenants.ts';
import type { TransactItem } from '#store/transact.ts';
import { getUser } from '#store/users.ts';

/**
 * What a tenant sees of a Plan Change: both Plans, its status and history, what to do next, the
 * estimate shown at confirmation and, once billing committed, the exact adjustment beside it with
 * the reason they differ. Never a processor id, an operator or a storage locator: why it ended is
 * a code of ours and its words, never what a Dispatcher wrote (kept for operators only).
 */
export const planChangeView = (change: PlanChange) => {
  const reasonCode = planChangeReasonOf({
    status: change.status,
    reasonCode: change.reasonCode,
    notBilled: change.final?.notBilled !== undefined,
  });
  return {
    changeId: change.changeId,
    stackId: change.stackId,
    currentPlan: change.fromPlan,
    requestedPlan: change.toPlan,
    status: change.status,
    cancellable: isCancellable(change.status),
    confirmedAt: change.confirmedAt,
    updatedAt: change.updatedAt,
    expiresAt: change.expiresAt,
    history: change.history.map((entry) => ({ status: entry.status, at: entry.at })),
    recovery: recoveryMessage(change.status),
    reasonCode,
    outcome: reasonCode === null ? null : planChangeReasonText(reasonCode),
    location: {
      from: change.fromLocation,
      to: change.targetLocation ?? null,
      addressChanged: change.addressChanged ?? null,
    },
    // Changes confirmed before the tax and lines were kept show null and no lines.
    estimate: change.estimate
      ? {
          ...change.estimate,
          adjustmentTax: change.estimate.adjustmentTax ?? null,
          adjustmentTotal: change.estimate.adjustmentTotal ?? null,
          lines: change.estimate.lines ?? [],
        }
      : null,
    final: change.final ? finalView(change, change.final) : null,
  };
};

/**
 * The final figures beside the estimate's: the adjustment after discount and before tax, its tax
 * and their sum (what the next invoice changes by), each difference, and why they differ. A change
 * committed before the tax was kept shows null for the tax and the total.
 */
export const finalView = (change: PlanChange, final: NonNullable<PlanChange['final']>) => {
  const estimate = change.estimate;
  const tax = final.adjustmentTax ?? null;
  const total = final.adjustmentTotal ?? (tax === null ? null : final.adjustment + tax);
  const estimatedTotal = estimate?.adjustmentTotal ?? null;
  return {
    adjustment: final.adjustment,
    adjustmentTax: tax,
    adjustmentTotal: total,
    currency: final.currency,
    committedAt: final.committedAt,
    estimatedAdjustment: estimate?.adjustment ?? null,
    estimatedAdjustmentTax: estimate?.adjustmentTax ?? null,
    estimatedAdjustmentTotal: estimatedTotal,
    difference: estimate ? final.adjustment - estimate.adjustment : null,
    totalDifference: total !== null && estimatedTotal !== null ? total - estimatedTotal : null,
    explanation: adjustmentExplanation({
      estimate: estimate?.adjustment ?? null,
      final: final.adjustment,
      confirmedAt: change.confirmedAt,
      healthyAt: change.healthyAt ?? final.committedAt,
      proratedFrom: final.proratedFrom,
      period: final.period,
      notBilled: final.notBilled,
      estimateLines: estimate?.lines,
      estimateTax: estimate?.adjustmentTax,
      finalTax: final.adjustmentTax,
    }),
  };
};

/** The execution state that resumes a change where its record says it is. */
export const executionOf = (change: PlanChange, waitSeconds = 0): PlanChangeExecution => ({
  changeId: change.changeId,
  tenantId: change.tenantId,
  expiresAt: change.expiresAt,
  step: isTerminal(change.status) ? 'done' : change.step,
  waitSeconds,
});

/** What a task reads first: the change, its Stack and tenant (undefined when any is gone). */
export const readRun = async (
  input: PlanChangeExecution,
): Promise<{ change: PlanChange; stack: StoredStack; tenant: Tenant } | undefined> => {
  const change = await getPlanChange(input.tenantId, input.changeId);
  if (!change) return undefined;
  const [stack, tenant] = await Promise.all([
    getStack(change.tenantId, change.stackId),
    getTenant(change.tenantId),
  ]);
  if (!stack || !tenant) return undefined;
  return { change, stack, tenant };
};

/**
 * The status an event moves the change to, by THE status machine (functions/core/plan-change.ts):
 * every task and route asks it, so the workflow cannot take a move the rules do not allow.
 */
export const statusAfter = (change: PlanChange, event: PlanChangeEvent): PlanChangeStatus => {
  const next = applyPlanChangeEvent({ status: change.status, confirmedAt: change.confirmedAt }, event);
  if (next === change.status)
    throw new Error(`a ${change.status} Plan Change does not move on ${event.type}`);
  return next;
};

/** The administrator who confirmed: the outcome email goes to them. */
export const requesterEmail = async (change: PlanChange): Promise<string | undefined> =>
  (await getUser(change.requestedBy))?.email;

/**
 * The writes that end a change without moving the Stack (rolled back, expired, cancelled,
 * superseded): the record ends, the Stack's operation and pointer go (admission reopens on the
 * previous Plan), a held place is given back, and the one email of the outcome, if any, goes into
 * the outbox in the same transaction (its key makes it once).
 */
export const endWrites = (params: {
  change: PlanChange;
  stack: StoredStack;
  /** What ends it: a cancel, the tenant leaving, a failure, the clock (expiry) or a newer change. */
  event: PlanChangeEvent;
  /** Why, as the tenant is told. */
  reason: PlanChangeReason;
  now: Date;
  email?: { to: string; content: EmailContent } | undefined;
}): TransactItem[] => {
  const { change, stack, now } = params;
  const status = statusAfter(change, params.event);
  if (!isTerminal(status))
    throw new Error(`${params.event.type} does not end a ${change.status} Plan Change`);
  const writes: TransactItem[] = [
    planChangeUpdate(change, { status, step: 'done', reasonCode: params.reason }, now),
  ];
  if (stack.openChange?.id === change.changeId) {
    const next = stack.operation?.id === change.changeId ? { ...stack, operation: undefined } : stack;
    writes.push(planChangeStackWrite(change.tenantId, stack, next, null));
  }
  if (change.targetLocation !== undefined)
    writes.push(releaseHoldWrite(change.region, changeHolder(change.changeId)));
  if (params.email)
    writes.push(
      outboxPut(`plan-change:${change.changeId}:${status}`, params.email.to, params.email.content, now),
    );
  return writes;
};

/**
 * Why a waiting change can no longer go on, a reason of ours (it then rolls back, with its email):
 * the tenant is leaving (its Stacks are torn down with it), the Stack is being torn down, or
 * billing is overdue (past-due, suspended) or otherwise not active.
 */
export const noLongerWanted = (tenant: Tenant, stack: StoredStack): PlanChangeReason | undefined => {
  if (tenant.billingState === 'decommissioning') return 'account_closing';
  if (stack.lifecycle !== 'running') return 'stack_teardown';
  if (tenant.billingState === 'past-due' || tenant.billingState === 'suspended') return 'billing_overdue';
  if (tenant.billingState !== 'active') return 'billing_not_active';
  return undefined;
};
