import { catalog } from './catalog.ts';

/**
 * The refusals of Plan Changes (their preview, confirmation, cancellation, release gates): each
 * code once, with its kind and its words. The tenant's billing and the Stack's state refuse a
 * confirmation with codes an added Stack shares (`billing_overdue`, `subscription_not_active`,
 * `stack_not_running`, in the Stacks catalog; `account_closing`, `cancellation_scheduled` from
 * functions/core/leaving.ts).
 */
export const planChangesRefusals = catalog({
  /** The tenant has no such Plan Change. */
  plan_change_not_found: {
    kind: 'not_found',
    words: (facts: { changeId: string }) =>
      `This tenant has no Plan Change "${facts.changeId}": GET /v1/plan-changes lists them.`,
  },
  /** A release gate is not ready (`gatesNotReady` names them). */
  plan_changes_unavailable: {
    kind: 'conflict',
    words: (facts: { gates: string }) =>
      `Plan Changes are not available yet: these release gates are not ready: ${facts.gates}.`,
  },
  /** The Stack is already on the Plan asked for. */
  plan_unchanged: { kind: 'conflict', words: 'The Stack is already on this Plan: choose another Plan.' },
  /** Another change of the Stack is past Waiting for Capacity and has not ended. */
  operation_in_progress: {
    kind: 'conflict',
    words:
      'Another change is already being carried out on this Stack: wait until it completes or rolls back (GET /v1/plan-changes?stackId=...).',
  },
  /** The Stack kept changing while the change was confirmed (every attempt met another write). */
  confirm_conflict: {
    kind: 'conflict',
    words:
      'The Stack kept changing while the change was confirmed: read GET /v1/plan-changes?stackId=..., then try again.',
  },
  /** A cancel of a change that has ended (`status`). */
  plan_change_ended: {
    kind: 'conflict',
    words: (facts: { status: string }) =>
      `This change has already ended (${facts.status}); there is nothing to cancel.`,
  },
  /** A cancel of a change past its cancel window (`status`). */
  plan_change_not_cancellable: {
    kind: 'conflict',
    words: (facts: { status: string }) =>
      `This change is ${facts.status}: the cancel window closed when the final backup began (Preparing). It completes or rolls back on its own.`,
  },
  /** The change kept moving while it was cancelled (every attempt met another write). */
  cancel_conflict: { kind: 'conflict', words: 'The change kept moving while it was cancelled: try again.' },
});
