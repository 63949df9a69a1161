import { Arn, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Environment } from '../../../functions/ports/config.ts';
import { RECONCILER_TABLE_ACCESS } from '../../table-access.ts';
import { grantTable, handlerFunction, nagName } from './lambda.ts';

export const RECONCILER_HANDLER = 'functions/reconciler/sweep.ts';
/** The reconciler's memory (`npm run bench` bills it). */
export const RECONCILER_MEMORY_MB = 1024;
/** An asynchronous invocation of the sweep older than this is dropped (the schedule is the backstop). */
export const SWEEP_MAX_EVENT_AGE_SECONDS = 60;

export interface ReconcilerProps {
  table: Table;
  environment: Environment;
  events: Queue;
  deadLetters: Queue;
  processorApiKey: ISecret;
  /** The sender address; its domain must be a verified SES identity. */
  mailFrom: string;
  /** The SES account's maximum send rate (emails per second); the function's default (1) when unset. */
  sesMaxSendRate?: string;
}

/**
 * What the outbox may send through SES: `ses:SendEmail` on the account's identities in the region,
 * only from `mailFrom`. SES authorizes a send against every identity it involves: the sender's
 * (the address or its domain, whichever is verified) and, while the account is in the sandbox,
 * each recipient's (verified addresses); a grant on the sender's domain alone refuses those sends,
 * and the outbox would park them. The condition keeps the sender to ours.
 */
export const sesSendGrant = (scope: Construct, mailFrom: string): PolicyStatement =>
  new PolicyStatement({
    actions: ['ses:SendEmail'],
    resources: [Arn.format({ service: 'ses', resource: 'identity', resourceName: '*' }, Stack.of(scope))],
    conditions: { StringEquals: { 'ses:FromAddress': mailFrom } },
  });

/**
 * The reconciler sweep: the only writer of a tenant's billing state. An EventBridge schedule runs
 * it every minute as the backstop; intake nudges it at once. Sweeps never overlap: each takes the
 * sweep lease in the table (functions/store/sweep-lease.ts) and one that finds it held returns at
 * once. No reserved concurrency: reserving any fails the deploy in an account at the minimum
 * Lambda concurrency quota.
 */
export class Reconciler extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ReconcilerProps) {
    super(scope, id);
    this.function = handlerFunction(this, 'Sweep', {
      entry: RECONCILER_HANDLER,
      timeout: Duration.seconds(60),
      memorySize: RECONCILER_MEMORY_MB,
      environment: {
        ...props.environment,
        PROCESSOR_EVENTS_QUEUE_URL: props.events.queueUrl,
        PROCESSOR_EVENTS_DLQ_URL: props.deadLetters.queueUrl,
        PROCESSOR_API_KEY_ARN: props.processorApiKey.secretArn,
        MAIL_FROM: props.mailFrom,
        ...(props.sesMaxSendRate ? { SES_MAX_SEND_RATE: props.sesMaxSendRate } : {}),
      },
    });
    // A nudge is worth something only now: an asynchronous invocation (a nudge, the schedule's) is
    // dropped after a minute and never retried; the next schedule tick or nudge does the work.
    this.function.configureAsyncInvoke({
      maxEventAge: Duration.seconds(SWEEP_MAX_EVENT_AGE_SECONDS),
      retryAttempts: 0,
    });
    grantTable(props.table, this.function, RECONCILER_TABLE_ACCESS);

    props.events.grantConsumeMessages(this.function);
    props.deadLetters.grant(this.function, 'sqs:GetQueueAttributes');
    props.processorApiKey.grantRead(this.function);
    const send = sesSendGrant(this, props.mailFrom);
    this.function.addToRolePolicy(send);
    Validations.of(this.function).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagName(this.function, Stack.of(this), send.resources[0] ?? '')}]`,
      reason:
        'SES checks a send against the sender identity and, in the sandbox, each verified recipient identity: any identity of the account and region, and only from the address mailFrom.',
    });
    new Rule(this, 'EveryMinute', {
      description: 'The reconciler sweep backstop: intake nudges it sooner.',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.function, {
          retryAttempts: 0,
          maxEventAge: Duration.seconds(SWEEP_MAX_EVENT_AGE_SECONDS),
        }),
      ],
    });
  }
}
