import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  AlarmWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from '../../../functions/ports/metrics.ts';

/** Thresholds of the alarms (docs/runbook.md, "Alarms", says what each means and what to do). */
export const ALARM_THRESHOLDS = {
  /** Any message in the dead-letter queue: an event the sweep could not store 5 times. */
  deadLetters: 1,
  /** Tenants whose reconciliation threw, summed over 5 minutes (each sweep retries them). */
  reconcileFailures: 5,
  /** Failed or timed-out reconciler invocations in 5 minutes. */
  sweepErrors: 2,
  /** Completed sweeps in 10 minutes below this (none at all, or no data) is an alarm. */
  sweepsCompleted: 1,
  /** Webhooks refused for their signature in 5 minutes. */
  webhookSignatureFailures: 10,
  /** API answers with a 5xx status in 5 minutes (processor trouble and retryable table faults too). */
  api5xx: 5,
  /** Any 500 of a defect of ours (`unhandled error`, metric ApiUnhandledErrors) in 5 minutes. */
  apiDefects: 1,
  /** Any added Stack's charge taken back (an add applied at the processor whose Stack never came). */
  addedStackChargesTakenBack: 1,
  /** Any email parked as failed after its last attempt (`npm run ops -- outbox list`). */
  emailsParked: 1,
  /** Any use of a secret that still holds the value generated at the first deploy. */
  secretsNotSet: 1,
  /** Any checkout refused because the Home Region had no place for its Plan (`npm run ops -- capacity list`). */
  noCapacity: 1,
  /** Fewer Plans than this placeable in the Home Region at every sweep of 10 minutes (none at all). */
  noPlaceablePlan: 1,
} as const;

export interface OperatorAlarmsProps {
  reconciler: IFunction;
  deadLetters: IQueue;
  api: HttpApi;
  /** Subscribed to the alarm topic when set (CDK context `alarmEmail`). */
  alarmEmail?: string;
}

const ownMetric = (metricName: string, period: Duration) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic: Stats.SUM,
    period,
  });

/**
 * The operators' alarms, their SNS topic and one dashboard. The application metrics come from
 * functions/ports/metrics.ts (embedded metric format, namespace StackControlPlane).
 */
export class OperatorAlarms extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Record<keyof typeof ALARM_THRESHOLDS, Alarm>;

  constructor(scope: Construct, id: string, props: OperatorAlarmsProps) {
    super(scope, id);
    // The stack's name (its stage) in the display name: the alarm emails say which stage rang.
    this.topic = new Topic(this, 'Topic', {
      displayName: `Stack Control Plane alarms (${Stack.of(this).stackName})`,
      enforceSSL: true,
    });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry only alarm names and metric values, no tenant data; CloudWatch cannot publish to a topic under the AWS-managed SNS key.',
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const fiveMinutes = Duration.minutes(5);
    const alarm = (
      alarmId: string,
      description: string,
      options: {
        metric: Metric;
        threshold: number;
        comparisonOperator?: ComparisonOperator;
        treatMissingData?: TreatMissingData;
      },
    ) => {
      const created = new Alarm(this, alarmId, {
        alarmDescription: `${description} See docs/runbook.md, "Alarms".`,
        metric: options.metric,
        threshold: options.threshold,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        comparisonOperator:
          options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      created.addOkAction(new SnsAction(this.topic));
      return created;
    };

    this.alarms = {
      deadLetters: alarm('DeadLetters', 'Processor events are waiting in the dead-letter queue.', {
        metric: props.deadLetters.metricApproximateNumberOfMessagesVisible({
          statistic: Stats.MAXIMUM,
          period: fiveMinutes,
        }),
        threshold: ALARM_THRESHOLDS.deadLetters,
      }),
      reconcileFailures: alarm('ReconcileFailures', 'Tenant reconciliations keep failing.', {
        metric: ownMetric(METRIC.reconcileFailures, fiveMinutes),
        threshold: ALARM_THRESHOLDS.reconcileFailures,
      }),
      sweepErrors: alarm('SweepErrors', 'Reconciler invocations fail or time out.', {
        metric: props.reconciler.metricErrors({ statistic: Stats.SUM, period: fiveMinutes }),
        threshold: ALARM_THRESHOLDS.sweepErrors,
      }),
      sweepsCompleted: alarm('NoSweepCompleted', 'No reconciler sweep completed in 10 minutes.', {
        metric: ownMetric(METRIC.sweepCompleted, Duration.minutes(10)),
        threshold: ALARM_THRESHOLDS.sweepsCompleted,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
      }),
      webhookSignatureFailures: alarm(
        'WebhookSignatureFailures',
        'Processor webhooks are refused for their signature.',
        {
          metric: ownMetric(METRIC.webhookSignatureFailures, fiveMinutes),
          threshold: ALARM_THRESHOLDS.webhookSignatureFailures,
        },
      ),
      api5xx: alarm('Api5xx', 'The API answers 5xx.', {
        metric: props.api.metricServerError({ statistic: Stats.SUM, period: fiveMinutes }),
        threshold: ALARM_THRESHOLDS.api5xx,
      }),
      addedStackChargesTakenBack: alarm(
        'AddedStackChargeTakenBack',
        "An added Stack's charge was taken back: the processor applied an add whose Stack never came.",
        {
          metric: ownMetric(METRIC.abandonedAddUndone, fiveMinutes),
          threshold: ALARM_THRESHOLDS.addedStackChargesTakenBack,
        },
      ),
      emailsParked: alarm(
        'EmailsParked',
        'An email was parked as failed after its last attempt: list them with npm run ops -- outbox list.',
        {
          metric: ownMetric(METRIC.emailsParked, fiveMinutes),
          threshold: ALARM_THRESHOLDS.emailsParked,
        },
      ),
      secretsNotSet: alarm(
        'SecretNotSet',
        'A function needed a secret that still holds the placeholder generated at the first deploy: set its real value.',
        {
          metric: ownMetric(METRIC.secretsNotSet, fiveMinutes),
          threshold: ALARM_THRESHOLDS.secretsNotSet,
        },
      ),
      noCapacity: alarm(
        'NoCapacity',
        'A checkout found no placeable place for its Plan in the Home Region (on a new stage: no capacity was set): npm run ops -- capacity list, then capacity set or capacity seed.',
        {
          metric: ownMetric(METRIC.checkoutNoCapacity, fiveMinutes),
          threshold: ALARM_THRESHOLDS.noCapacity,
        },
      ),
      // The Home Region has room for no Plan at all: every sweep of 10 minutes counted 0 placeable
      // Plans (a new stage before `capacity seed`, or a full inventory), before any checkout is refused.
      noPlaceablePlan: alarm(
        'NoPlaceablePlan',
        'The Home Region has no placeable Plan: every checkout would be refused no_capacity. npm run ops -- capacity list, then capacity set or capacity seed.',
        {
          metric: ownMetric(METRIC.homeRegionPlaceablePlans, Duration.minutes(10)).with({
            statistic: Stats.MAXIMUM,
          }),
          threshold: ALARM_THRESHOLDS.noPlaceablePlan,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        },
      ),
      // Our defects alone: a 503 `temporarily_busy` (a table conflict or throttle a retry clears)
      // or a 502 of the processor is not one; Api5xx above still shows those.
      apiDefects: alarm(
        'ApiDefects',
        'The API answered 500 for a defect of ours (log line `unhandled error`): read its request id in the function logs.',
        {
          metric: ownMetric(METRIC.apiUnhandledErrors, fiveMinutes),
          threshold: ALARM_THRESHOLDS.apiDefects,
        },
      ),
    };

    const all = Object.values(this.alarms);
    const alarmWidgets = all.map((a) => new AlarmWidget({ alarm: a, title: a.node.id, width: 8, height: 6 }));
    this.dashboard = new Dashboard(this, 'Dashboard', {
      widgets: [
        [new AlarmStatusWidget({ title: 'Alarms', alarms: all, width: 24 })],
        // Three alarm widgets (8 wide each) to a row.
        ...Array.from({ length: Math.ceil(alarmWidgets.length / 3) }, (_, row) =>
          alarmWidgets.slice(row * 3, row * 3 + 3),
        ),
        [
          new GraphWidget({
            title: 'Sweep: events and tenants',
            width: 12,
            left: [
              METRIC.eventsApplied,
              METRIC.duplicateEventsSkipped,
              METRIC.tenantsReconciled,
              METRIC.reconcileConflicts,
            ].map((name) => ownMetric(name, fiveMinutes)),
          }),
          new GraphWidget({
            title: 'Emails and checkouts',
            width: 12,
            left: [
              METRIC.emailsSent,
              METRIC.emailsFailed,
              METRIC.emailsParked,
              METRIC.checkoutCreated,
              METRIC.checkoutNoCapacity,
              METRIC.checkoutFailed,
            ].map((name) => ownMetric(name, fiveMinutes)),
          }),
        ],
      ],
    });
  }
}
