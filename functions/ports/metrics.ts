import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BILLING_STATES, type BillingState } from '#core/billing-state.ts';
import { Refusal } from '#core/refusal.ts';
import { FAILURE_KINDS } from '#core/refusals/kinds.ts';
import { config } from './config.ts';

/**
 * Operators' metrics, in CloudWatch's embedded metric format (EMF): each record call writes one
 * JSON line to the function's log stream and CloudWatch turns it into metrics; no extra API call,
 * no extra permission. Outside Lambda (npm start, tests, the bench) nothing is written: the call
 * only answers the document it would have emitted.
 *
 * The alarms of lib/infra/constructs/alarms.ts read these names: change them together.
 */
export const METRICS_NAMESPACE = 'StackControlPlane';
/** The one dimension of every metric (Powertools' `service`). */
export const METRICS_SERVICE = 'stack-control-plane';

const movedTo = (state: BillingState) =>
  `TenantsMovedTo${state
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}` as const;

export const METRIC = {
  // The reconciler sweep (one set per sweep).
  sweepCompleted: 'SweepCompleted',
  sweepDuration: 'SweepDuration',
  eventsApplied: 'EventsApplied',
  duplicateEventsSkipped: 'DuplicateEventsSkipped',
  eventsUnmatched: 'EventsUnmatched',
  eventsNotApplied: 'EventsNotApplied',
  tenantsReconciled: 'TenantsReconciled',
  reconcileConflicts: 'ReconcileConflicts',
  reconcileFailures: 'ReconcileFailures',
  waitlistNotified: 'WaitlistNotified',
  emailsSent: 'EmailsSent',
  emailsFailed: 'EmailsFailed',
  emailsParked: 'EmailsParked',
  // Configuration.
  secretsNotSet: 'SecretsNotSet',
  deadLetterDepth: 'DeadLetterDepth',
  // Webhook intake.
  webhookVerified: 'WebhookVerified',
  webhookSignatureFailures: 'WebhookSignatureFailures',
  // Checkout.
  checkoutCreated: 'CheckoutCreated',
  checkoutNoCapacity: 'CheckoutNoCapacity',
  // Capacity: the Plans a checkout could be placed on in the Home Region now (a gauge, each sweep).
  homeRegionPlaceablePlans: 'HomeRegionPlaceablePlans',
  checkoutFailed: 'CheckoutFailed',
  // Plan Changes.
  planChangeBillingCommitRefused: 'PlanChangeBillingCommitRefused',
  // Subscription items.
  abandonedAddUndone: 'AddedStackChargeTakenBack',
  // Failures a Dispatcher reported (its words are in the log line beside each; tenants see our codes).
  planChangeStepsFailed: 'PlanChangeStepsFailed',
  exportsFailed: 'ExportsFailed',
  credentialValidationsFailed: 'CredentialValidationsFailed',
  // Faults of the external dependencies our code retries, absorbs or parks (issue 25; one each, so
  // an alarm says which dependency is failing; docs/runbook.md "Dependency faults").
  processorUnavailable: 'ProcessorUnavailable',
  processorRateLimited: 'ProcessorRateLimited',
  tableThrottles: 'TableThrottles',
  tableTransactionConflicts: 'TableTransactionConflicts',
  queueCallsFailed: 'QueueCallsFailed',
  workflowStartsRefused: 'WorkflowStartsRefused',
  // API requests that failed on something that is not a refusal of ours nor a fault a retry
  // clears: our defects (each with an `unhandled error` log line).
  apiUnhandledErrors: 'ApiUnhandledErrors',
  // What a process that died midway leaves to its successor (docs/crash.md).
  idempotencyClaimsTakenOver: 'IdempotencyClaimsTakenOver',
  emailsSentAgain: 'EmailsSentAgain',
} as const;

/** A fault of an external dependency that our code (or its SDK) retries, absorbs or parks. */
export type DependencyFault =
  | 'processor_unavailable'
  | 'processor_rate_limited'
  | 'table_throttled'
  | 'table_transaction_conflict'
  | 'queue_call_failed'
  | 'workflow_start_refused';

const DEPENDENCY_FAULT_METRIC: Record<DependencyFault, string> = {
  processor_unavailable: METRIC.processorUnavailable,
  processor_rate_limited: METRIC.processorRateLimited,
  table_throttled: METRIC.tableThrottles,
  table_transaction_conflict: METRIC.tableTransactionConflicts,
  queue_call_failed: METRIC.queueCallsFailed,
  workflow_start_refused: METRIC.workflowStartsRefused,
};

/** `TenantsMovedTo<State>` per billing state, e.g. `TenantsMovedToPastDue`. */
export const TENANTS_MOVED_TO = Object.fromEntries(
  BILLING_STATES.map((state) => [state, movedTo(state)]),
) as {
  [S in BillingState]: ReturnType<typeof movedTo>;
};

/** The figures of a sweep these metrics read (the reconciler's `SweepSummary` has them all). */
export interface SweepFigures {
  intake: { applied: number; duplicates: number; unmatched: number; failed: number };
  reconciled: number;
  transitions: readonly { to: string }[];
  conflicts: number;
  failed: number;
  waitlistNotified: number;
  /** Plans a checkout could be placed on in the Home Region, as the sweep read its capacity. */
  homeRegionPlaceablePlans: number;
  emailsSent: number;
  emailsFailed: number;
  emailsParked: number;
  durationMs: number;
}

export type WebhookOutcome = 'verified' | 'signature_failure';
export type CheckoutOutcome = 'created' | 'no_capacity' | 'failed';

/** One EMF document, as written to the log stream. */
export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

let instance: Metrics | undefined;
const metrics = (): Metrics => {
  instance ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  return instance;
};

/** True inside a Lambda function (its runtime sets AWS_LAMBDA_FUNCTION_NAME); false for npm start and tests. */
const inLambda = (): boolean => config.inLambda();

type Values = Record<string, { unit: (typeof MetricUnit)[keyof typeof MetricUnit]; value: number }>;

/**
 * Adds `values` and flushes them at once as one EMF line (in Lambda), so that no handler has to
 * remember a flush and nothing is left in the buffer when the invocation ends.
 */
const emit = (values: Values): EmfDocument => {
  const m = metrics();
  for (const [name, { unit, value }] of Object.entries(values)) m.addMetric(name, unit, value);
  const document = m.serializeMetrics() as unknown as EmfDocument;
  if (inLambda()) {
    m.publishStoredMetrics();
  } else {
    m.clearMetrics();
    m.clearDimensions();
    m.clearMetadata();
  }
  return document;
};

const count = (value: number) => ({ unit: MetricUnit.Count, value });

/** One sweep's figures; `SweepCompleted` = 1 is the heartbeat an alarm watches for. */
export const recordSweep = (summary: SweepFigures): EmfDocument => {
  const moved = Object.fromEntries(
    BILLING_STATES.map((state) => [
      TENANTS_MOVED_TO[state],
      count(summary.transitions.filter((t) => t.to === state).length),
    ]),
  );
  return emit({
    [METRIC.sweepCompleted]: count(1),
    [METRIC.sweepDuration]: { unit: MetricUnit.Milliseconds, value: summary.durationMs },
    [METRIC.eventsApplied]: count(summary.intake.applied),
    [METRIC.duplicateEventsSkipped]: count(summary.intake.duplicates),
    [METRIC.eventsUnmatched]: count(summary.intake.unmatched),
    [METRIC.eventsNotApplied]: count(summary.intake.failed),
    [METRIC.tenantsReconciled]: count(summary.reconciled),
    [METRIC.reconcileConflicts]: count(summary.conflicts),
    [METRIC.reconcileFailures]: count(summary.failed),
    [METRIC.waitlistNotified]: count(summary.waitlistNotified),
    [METRIC.homeRegionPlaceablePlans]: count(summary.homeRegionPlaceablePlans),
    [METRIC.emailsSent]: count(summary.emailsSent),
    [METRIC.emailsFailed]: count(summary.emailsFailed),
    [METRIC.emailsParked]: count(summary.emailsParked),
    ...moved,
  });
};

/**
 * What a process that died midway left behind, found by its successor: an Idempotency-Key claim
 * whose holder never finished, taken over by a retry; an email SES accepted whose outbox record a
 * dead process never wrote, sent again after its lease ran out (docs/crash.md).
 */
export const recordCrashLeftover = (kind: 'idempotency_claim_taken_over' | 'email_sent_again'): EmfDocument =>
  emit({
    [kind === 'idempotency_claim_taken_over' ? METRIC.idempotencyClaimsTakenOver : METRIC.emailsSentAgain]:
      count(1),
  });

/** One processor webhook: verified and queued, or refused for its signature (missing, wrong or too old). */
export const recordWebhook = (outcome: WebhookOutcome): EmfDocument =>
  emit({
    [METRIC.webhookVerified]: count(outcome === 'verified' ? 1 : 0),
    [METRIC.webhookSignatureFailures]: count(outcome === 'signature_failure' ? 1 : 0),
  });

/** One checkout request: a session created (or reused), refused for capacity (409), or failed. */
export const recordCheckout = (outcome: CheckoutOutcome): EmfDocument =>
  emit({
    [METRIC.checkoutCreated]: count(outcome === 'created' ? 1 : 0),
    [METRIC.checkoutNoCapacity]: count(outcome === 'no_capacity' ? 1 : 0),
    [METRIC.checkoutFailed]: count(outcome === 'failed' ? 1 : 0),
  });

/**
 * A checkout that did not create a session: `no_capacity` for the 409 of that name, `failed` for
 * anything that is not a refusal of ours (or a 5xx); other refusals (slug missing, ...) count nothing.
 */
export const recordCheckoutRefusal = (error: unknown): EmfDocument | undefined => {
  if (error instanceof Refusal && error.code === 'no_capacity') return recordCheckout('no_capacity');
  if (!(error instanceof Refusal) || FAILURE_KINDS.has(error.kind)) return recordCheckout('failed');
  return undefined;
};

/** Messages waiting in the processor events' dead-letter queue, as the sweep saw them. */
export const recordDlqDepth = (depth: number): EmfDocument =>
  emit({ [METRIC.deadLetterDepth]: count(depth) });

/** A Plan Change's billing commit the processor refused (it is retried; the operators' alarm watches this). */
export const recordBillingCommitRefused = (): EmfDocument =>
  emit({ [METRIC.planChangeBillingCommitRefused]: count(1) });

/**
 * An added Stack's charge taken back: its item change was applied but the Stack was never created
 * (its request was given up). Each one is a lost answer the add could not decide at the time.
 */
export const recordAbandonedAddUndone = (): EmfDocument => emit({ [METRIC.abandonedAddUndone]: count(1) });

/** What a Dispatcher reported failed: a Plan Change step, an export, or a Credential's validation. */
export type DispatcherFailure = 'plan_change_step' | 'export' | 'credential_validation';

/**
 * One failure a Dispatcher reported. Operators read its words in the log line written beside it
 * (and, for a Plan Change, with `npm run ops -- plan-change show`); the tenant reads our code.
 */
export const recordDispatcherFailure = (failure: DispatcherFailure): EmfDocument =>
  emit({
    [METRIC.planChangeStepsFailed]: count(failure === 'plan_change_step' ? 1 : 0),
    [METRIC.exportsFailed]: count(failure === 'export' ? 1 : 0),
    [METRIC.credentialValidationsFailed]: count(failure === 'credential_validation' ? 1 : 0),
  });

/**
 * A function needed a secret that still holds the placeholder generated at the first deploy (or is
 * empty): the `SecretNotSet` alarm watches this. Which secret is in the log line beside it
 * (functions/ports/secrets.ts).
 */
export const recordSecretNotSet = (): EmfDocument => emit({ [METRIC.secretsNotSet]: count(1) });

/**
 * One fault of an external dependency, as our code met it: the processor unavailable (5xx, timeout,
 * dropped connection, after the SDK's own retries) or rate limiting us (429), a throttled table
 * call or a transaction conflict (each attempt, retried by the SDK or the sweep), a queue call that
 * failed, a workflow start refused.
 */
export const recordDependencyFault = (fault: DependencyFault): EmfDocument =>
  emit({ [DEPENDENCY_FAULT_METRIC[fault]]: count(1) });

/**
 * One API request that failed on an error that is neither a refusal of ours nor a fault a retry
 * clears (a throttle, a transaction conflict: those answer 503 `temporarily_busy`): a defect.
 */
export const recordUnhandledError = (): EmfDocument => emit({ [METRIC.apiUnhandledErrors]: count(1) });
