import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import {
  type EmfDocument,
  METRIC,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  recordCheckout,
  recordDependencyFault,
  recordDispatcherFailure,
  recordDlqDepth,
  recordSweep,
  recordWebhook,
  type SweepFigures,
  TENANTS_MOVED_TO,
} from '#ports/metrics.ts';
import { idleSweep } from '../support/sweep-figures.ts';

const summary: SweepFigures = {
  intake: { applied: 4, duplicates: 2, unmatched: 1, failed: 3 },
  reconciled: 5,
  transitions: [
    { to: 'active' },
    { to: 'past-due' },
    { to: 'past-due' },
    { to: 'suspended' },
    { to: 'decommissioning' },
  ],
  conflicts: 1,
  failed: 6,
  waitlistNotified: 2,
  homeRegionPlaceablePlans: 3,
  emailsSent: 7,
  emailsFailed: 8,
  emailsParked: 9,
  durationMs: 1234,
};

/** Metric name -> [unit, value] of one EMF document. */
const figures = (document: EmfDocument) =>
  Object.fromEntries(
    (document._aws.CloudWatchMetrics[0]?.Metrics ?? []).map((metric) => [
      metric.Name,
      [metric.Unit, document[metric.Name]],
    ]),
  );

let written: MockInstance<typeof process.stdout.write>;
const lines = () =>
  written.mock.calls
    .map(([chunk]) => String(chunk))
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '');

beforeEach(() => {
  written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => {
  written.mockRestore();
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
});

describe('operators metrics (embedded metric format)', () => {
  it('a sweep summary becomes one EMF document: namespace, service dimension, every figure', () => {
    const document = recordSweep(summary);
    expect(document._aws.CloudWatchMetrics).toHaveLength(1);
    expect(document._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRICS_NAMESPACE);
    expect(document._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service']]);
    expect(document.service).toBe(METRICS_SERVICE);
    expect(typeof document._aws.Timestamp).toBe('number');
    expect(figures(document)).toEqual({
      SweepCompleted: ['Count', 1],
      SweepDuration: ['Milliseconds', 1234],
      EventsApplied: ['Count', 4],
      DuplicateEventsSkipped: ['Count', 2],
      EventsUnmatched: ['Count', 1],
      EventsNotApplied: ['Count', 3],
      TenantsReconciled: ['Count', 5],
      ReconcileConflicts: ['Count', 1],
      ReconcileFailures: ['Count', 6],
      WaitlistNotified: ['Count', 2],
      HomeRegionPlaceablePlans: ['Count', 3],
      EmailsSent: ['Count', 7],
      EmailsFailed: ['Count', 8],
      EmailsParked: ['Count', 9],
      TenantsMovedToProvisioning: ['Count', 0],
      TenantsMovedToActive: ['Count', 1],
      TenantsMovedToPastDue: ['Count', 2],
      TenantsMovedToSuspended: ['Count', 1],
      TenantsMovedToDecommissioning: ['Count', 1],
    });
    expect(TENANTS_MOVED_TO['past-due']).toBe('TenantsMovedToPastDue');
  });

  it('an idle sweep still reports SweepCompleted = 1 and zeros (the heartbeat the alarm needs)', () => {
    const idle = recordSweep(idleSweep({ durationMs: summary.durationMs }));
    expect(figures(idle)[METRIC.sweepCompleted]).toEqual(['Count', 1]);
    // No placeable Plan is a figure (0), never a missing one: the NoPlaceablePlan alarm reads it.
    expect(figures(idle)[METRIC.homeRegionPlaceablePlans]).toEqual(['Count', 0]);
    expect(figures(idle)[METRIC.reconcileFailures]).toEqual(['Count', 0]);
  });

  it('webhook, checkout and dead-letter figures', () => {
    expect(figures(recordWebhook('verified'))).toEqual({
      WebhookVerified: ['Count', 1],
      WebhookSignatureFailures: ['Count', 0],
    });
    expect(figures(recordWebhook('signature_failure'))).toEqual({
      WebhookVerified: ['Count', 0],
      WebhookSignatureFailures: ['Count', 1],
    });
    expect(figures(recordCheckout('created'))).toEqual({
      CheckoutCreated: ['Count', 1],
      CheckoutNoCapacity: ['Count', 0],
      CheckoutFailed: ['Count', 0],
    });
    expect(figures(recordCheckout('no_capacity'))[METRIC.checkoutNoCapacity]).toEqual(['Count', 1]);
    expect(figures(recordCheckout('failed'))[METRIC.checkoutFailed]).toEqual(['Count', 1]);
    expect(figures(recordDlqDepth(3))).toEqual({ DeadLetterDepth: ['Count', 3] });
  });

  it('a failure a Dispatcher reported counts under its kind (its words go to the log, never a metric)', () => {
    expect(figures(recordDispatcherFailure('plan_change_step'))).toEqual({
      PlanChangeStepsFailed: ['Count', 1],
      ExportsFailed: ['Count', 0],
      CredentialValidationsFailed: ['Count', 0],
    });
    expect(figures(recordDispatcherFailure('export'))[METRIC.exportsFailed]).toEqual(['Count', 1]);
    expect(
      figures(recordDispatcherFailure('credential_validation'))[METRIC.credentialValidationsFailed],
    ).toEqual(['Count', 1]);
  });

  it('a dependency fault counts under its own metric (one per kind the runbook explains)', () => {
    expect(figures(recordDependencyFault('processor_unavailable'))).toEqual({
      ProcessorUnavailable: ['Count', 1],
    });
    expect(figures(recordDependencyFault('processor_rate_limited'))).toEqual({
      ProcessorRateLimited: ['Count', 1],
    });
    expect(figures(recordDependencyFault('table_throttled'))).toEqual({ TableThrottles: ['Count', 1] });
    expect(figures(recordDependencyFault('table_transaction_conflict'))).toEqual({
      TableTransactionConflicts: ['Count', 1],
    });
    expect(figures(recordDependencyFault('queue_call_failed'))).toEqual({ QueueCallsFailed: ['Count', 1] });
    expect(figures(recordDependencyFault('workflow_start_refused'))).toEqual({
      WorkflowStartsRefused: ['Count', 1],
    });
  });

  it('writes nothing outside Lambda (npm start, tests)', () => {
    recordSweep(summary);
    recordWebhook('signature_failure');
    expect(written).not.toHaveBeenCalled();
  });

  it('in Lambda, each call flushes exactly its own metrics as one EMF line on stdout', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'StackControlPlane-ReconcilerSweep';
    recordWebhook('signature_failure');
    recordDlqDepth(2);
    const emitted = lines().map((line) => JSON.parse(line) as EmfDocument);
    expect(emitted).toHaveLength(2);
    expect(emitted[0]?._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRICS_NAMESPACE);
    expect(figures(emitted[0] as EmfDocument)).toEqual({
      WebhookVerified: ['Count', 0],
      WebhookSignatureFailures: ['Count', 1],
    });
    // The buffer was flushed: the second line carries only the dead-letter depth.
    expect(figures(emitted[1] as EmfDocument)).toEqual({ DeadLetterDepth: ['Count', 2] });
    expect(emitted[1]?.service).toBe(METRICS_SERVICE);
  });
});
