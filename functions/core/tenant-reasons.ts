import {
  DISPATCHER_STEP_LIMIT_HOURS,
  DRAIN_LIMIT_HOURS,
  type PlanChangeStatus,
  QUEUED_EXPIRY_DAYS,
} from './plan-change.ts';

/**
 * What a tenant is told when something a Dispatcher (or an operator) does fails: a closed
 * vocabulary of reason codes of ours, each with the words a tenant reads (what failed, what it
 * means for billing or data, what to do next). The Dispatcher's own text never reaches a tenant:
 * it names storage locations, provider identifiers and operators, and goes to operators only
 * (the record's `dispatcherReason`, a log line, a metric, `npm run ops -- plan-change show`).
 * docs/decisions.md, "An operator's words never reach a tenant", lists every code and its text.
 */

/** A tenant-facing reason: what happened, what it means for billing (or data), what to do next. */
export interface TenantReason {
  what: string;
  billing: string;
  next: string;
}

/** The three parts as one text (what the record's `outcome` and the views show). */
export const reasonText = (reason: TenantReason): string => `${reason.what} ${reason.billing} ${reason.next}`;

/**
 * A vocabulary made of its table (the table is where a code is named): the table, its codes in
 * the order the table names them, and its text lookup (the code's reason as one text).
 */
const vocabulary = <Code extends string>(table: Record<Code, TenantReason>) =>
  [table, Object.keys(table) as [Code, ...Code[]], (code: Code): string => reasonText(table[code])] as const;

// ---------------------------------------------------------------------------------------------
// Plan Changes

const UNCHANGED = 'The Stack stays on its previous Plan and billing is unchanged.';
const AGAIN = 'You may confirm the change again; if it fails again, contact support with this change’s id.';

export const [PLAN_CHANGE_REASON_TEXT, PLAN_CHANGE_REASONS, planChangeReasonText] = vocabulary({
  completed: {
    what: 'The Stack moved to the new Plan.',
    billing:
      'Billing follows the new Plan from the moment the replacement was healthy; this record shows the exact adjustment.',
    next: 'Nothing to do.',
  },
  completed_not_billed: {
    what: 'The Stack runs on the new Plan until its teardown.',
    billing: 'Nothing was billed for the change: the account was closed before it was committed.',
    next: 'Nothing to do.',
  },
  drain_timed_out: {
    what: `Work on the Stack did not finish within ${DRAIN_LIMIT_HOURS} hours, so the move could not begin.`,
    billing: UNCHANGED,
    next: 'Confirm the change again when the Stack is quieter.',
  },
  backup_failed: {
    what: 'The final backup before the move failed.',
    billing: UNCHANGED,
    next: AGAIN,
  },
  backup_timed_out: {
    what: `The Stack did not report its final backup within ${DISPATCHER_STEP_LIMIT_HOURS} hours.`,
    billing: UNCHANGED,
    next: AGAIN,
  },
  switch_failed: {
    what: 'The replacement on the new Plan could not be created.',
    billing: UNCHANGED,
    next: AGAIN,
  },
  switch_timed_out: {
    what: `The replacement on the new Plan did not report within ${DISPATCHER_STEP_LIMIT_HOURS} hours.`,
    billing: UNCHANGED,
    next: AGAIN,
  },
  verify_failed: {
    what: 'The replacement on the new Plan did not become healthy.',
    billing: UNCHANGED,
    next: AGAIN,
  },
  verify_timed_out: {
    what: `The replacement on the new Plan did not report its health within ${DISPATCHER_STEP_LIMIT_HOURS} hours.`,
    billing: UNCHANGED,
    next: AGAIN,
  },
  move_failed: {
    what: 'A step of the move failed.',
    billing: UNCHANGED,
    next: AGAIN,
  },
  no_capacity_expired: {
    what: `No place for the new Plan became free within ${QUEUED_EXPIRY_DAYS} days.`,
    billing: UNCHANGED,
    next: 'You may confirm the change again at any time; it starts as soon as a place is free.',
  },
  cancelled_by_administrator: {
    what: 'An administrator cancelled the change before the move began.',
    billing: UNCHANGED,
    next: 'You may confirm a change again while billing is active.',
  },
  cancelled: {
    what: 'The change was cancelled before the move began.',
    billing: UNCHANGED,
    next: 'You may confirm a change again while billing is active.',
  },
  // Kept for records ended before the causes below were told apart.
  billing_not_active: {
    what: 'Billing is no longer active, so the change was rolled back before the move began.',
    billing: UNCHANGED,
    next: 'Once billing is active again (pay the open invoice in the billing portal), you may confirm the change again.',
  },
  billing_overdue: {
    what: 'A payment failed and billing became overdue, so the change was rolled back before the move began.',
    billing: UNCHANGED,
    next: 'Pay the open invoice in the billing portal; once billing is active again, you may confirm the change again.',
  },
  account_closing: {
    what: 'The account is closing, so the change was rolled back before the move began.',
    billing: UNCHANGED,
    next: 'Nothing to do.',
  },
  stack_teardown: {
    what: 'The Stack is being torn down, so the change was rolled back before the move began.',
    billing: UNCHANGED,
    next: 'Nothing to do.',
  },
  superseded: {
    what: 'A newer change of this Stack replaced this one.',
    billing: 'This change moved nothing, and billing is unchanged by it.',
    next: 'Follow the newer change.',
  },
});
export type PlanChangeReason = keyof typeof PLAN_CHANGE_REASON_TEXT;

/** The Dispatcher steps whose outcome it reports. */
export type ReportedStep = 'backup' | 'switch' | 'verify';

/**
 * Why a Dispatcher step rolls a change back: the step, and whether the Dispatcher reported it
 * failed or never reported within the limit. Whatever the Dispatcher wrote decides nothing here.
 */
export const stepFailureReason = (step: ReportedStep, how: 'failed' | 'no_report'): PlanChangeReason =>
  `${step}_${how === 'failed' ? 'failed' : 'timed_out'}`;

/** The reason an ending status gives when the record kept no code (a record from before the codes). */
const BY_STATUS: Partial<Record<PlanChangeStatus, PlanChangeReason>> = {
  completed: 'completed',
  rolled_back: 'move_failed',
  expired: 'no_capacity_expired',
  cancelled: 'cancelled',
  superseded: 'superseded',
};

/**
 * The reason a tenant is shown for a change: the code stored with it, else (a record written
 * before codes were kept, whose free text may carry a Dispatcher's words) the one its status
 * implies; null while the change runs and no roll back was decided.
 */
export const planChangeReasonOf = (change: {
  status: PlanChangeStatus;
  reasonCode?: PlanChangeReason | undefined;
  /** The change completed without being billed (the account closed before the commit). */
  notBilled?: boolean | undefined;
}): PlanChangeReason | null =>
  change.reasonCode ??
  (change.status === 'completed' && change.notBilled ? 'completed_not_billed' : BY_STATUS[change.status]) ??
  null;

// ---------------------------------------------------------------------------------------------
// Export archives

const DATA_UNCHANGED = 'The Stack and its data are unchanged, and nothing is billed for an export.';

export const [EXPORT_FAILURE_TEXT, EXPORT_FAILURES, exportFailureText] = vocabulary({
  build_failed: {
    what: 'The Stack could not build the archive.',
    billing: DATA_UNCHANGED,
    next: 'Start a new export; if it fails again, contact support with the export’s id.',
  },
  upload_incomplete: {
    what: 'The uploaded parts of the archive did not make a whole archive.',
    billing: DATA_UNCHANGED,
    next: 'Start a new export.',
  },
  size_mismatch: {
    what: 'The stored archive was not the size the Stack built.',
    billing: DATA_UNCHANGED,
    next: 'Start a new export.',
  },
  build_timed_out: {
    what: 'The Stack did not finish the archive within 24 hours.',
    billing: DATA_UNCHANGED,
    next: 'Start a new export.',
  },
  stack_torn_down: {
    what: 'The Stack was torn down before the archive was ready.',
    billing: 'Nothing is billed for an export.',
    next: 'Its data is gone, so there is nothing left to export.',
  },
});
export type ExportFailure = keyof typeof EXPORT_FAILURE_TEXT;

// ---------------------------------------------------------------------------------------------
// Credential validation

export const [VALIDATION_FAILURE_TEXT, VALIDATION_FAILURES, validationFailureText] = vocabulary({
  provider_refused: {
    what: 'The Stack checked this Credential with its provider, and the provider did not accept it.',
    billing: 'Nothing is billed for it, and no Thread or Guide Session uses it.',
    next: 'Provision it again with new material (a rotation), or route another Credential.',
  },
});
/** Why a Credential's validation failed, as the tenant is told (one cause we can name). */
export type ValidationFailure = keyof typeof VALIDATION_FAILURE_TEXT;

/** Why a Guide selection was cleared (what the Dashboard shows). */
export const GUIDE_CLEARED_REASONS = [
  'archived',
  'deleted',
  'validation_failed',
  'subscription_policy',
  'cleared_by_administrator',
] as const;
export type GuideClearedReason = (typeof GUIDE_CLEARED_REASONS)[number];

/**
 * The reason a stored clearing is shown with: one of ours. A clearing kept before the codes
 * (`validation_failed: <the Dispatcher's words>`) shows as `validation_failed`.
 */
export const guideClearedReason = (stored: string): GuideClearedReason =>
  (GUIDE_CLEARED_REASONS as readonly string[]).includes(stored)
    ? (stored as GuideClearedReason)
    : 'validation_failed';
