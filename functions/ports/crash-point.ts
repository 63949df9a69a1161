/**
 * Named kill points (issue 37): places inside our code where a process dying would leave the most
 * to its successor, named so that the crash run (`npm run test:crash`, test/crash/run.ts) can kill
 * the process exactly there and check that nothing is lost or done twice. A point does nothing
 * unless the local run armed it (lib/crash-points.ts installs the handler from a file in the
 * data folder); in the cloud nothing installs one, and a point is one call of an unset function.
 * The list and what each point proves are in docs/crash.md.
 */
export const CRASH_POINTS = [
  /** The processor made the Checkout Session; our record of it is not written. */
  'checkout.session-created',
  /** The processor refunded a payment; the grant's record is not written. */
  'refund.refunded',
  /** A reconciliation wrote the billing state; its Stacks' and capacity's writes are not done. */
  'sweep.between-writes',
  /** An email was handed to SES; the outbox does not know it was sent. */
  'email.sent',
  /** A webhook was verified and its event enqueued; the answer is not sent. */
  'intake.enqueued',
  /** An Idempotency-Key is claimed; the work behind it is not done. */
  'idempotency.claimed',
  /** An export is recorded as started; its workflow has not run. */
  'export.started',
  /** A Plan Change task did its work; the workflow does not know it (each task has its point). */
  'plan-change.task',
  /** The processor bills an added Stack; the Stack is not stored yet. */
  'add-stack.billed',
] as const;

export type CrashPointName = (typeof CRASH_POINTS)[number];

let onPoint: ((name: CrashPointName, detail?: string) => void) | undefined;

/** The local run arms the points (lib/crash-points.ts); nothing else calls this. */
export const installCrashPoints = (
  handler: ((name: CrashPointName, detail?: string) => void) | undefined,
): void => {
  onPoint = handler;
};

/** A named kill point: nothing happens unless the local crash run armed it. */
export const crashPoint = (name: CrashPointName, detail?: string): void => {
  onPoint?.(name, detail);
};
