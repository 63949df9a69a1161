import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Arn, ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmWidget,
  ComparisonOperator,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct, type IConstruct } from 'constructs';
import type { Environment } from '../../../functions/ports/config.ts';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from '../../../functions/ports/metrics.ts';
import { REPO_ROOT } from '../../constants.ts';
import { PLAN_CHANGE_DEFINITION_FILE, PLAN_CHANGE_TASKS } from '../../plan-change-tasks.ts';
import type { OperatorAlarms } from './alarms.ts';
import { grantTable, handlerFunction, nagName } from './lambda.ts';

/** A task's Lambda stops this long before its Task state's TimeoutSeconds, so its own timeout is what fails. */
const LAMBDA_MARGIN_SECONDS = 10;

export interface PlanChangesProps {
  table: Table;
  environment: Environment;
  /** Read by the tasks that call the payment processor (`callsProcessor`) only. */
  processorApiKey: ISecret;
}

interface AslTask {
  Type: string;
  TimeoutSeconds?: number;
}

/**
 * The Plan Change workflow: one Lambda function per task of lib/plan-change-tasks.ts and the Step
 * Functions Standard state machine of statemachines/plan-change.asl.json (one execution per change,
 * named after its id), logged and traced.
 */
export class PlanChanges extends Construct {
  readonly stateMachine: StateMachine;
  readonly taskFunctions = new Map<string, NodejsFunction>();

  constructor(scope: Construct, id: string, props: PlanChangesProps) {
    super(scope, id);
    const definitionText = readFileSync(path.join(REPO_ROOT, PLAN_CHANGE_DEFINITION_FILE), 'utf8');
    const states = (JSON.parse(definitionText) as { States: Record<string, AslTask> }).States;

    for (const task of PLAN_CHANGE_TASKS) {
      const taskTimeout = states[task.state]?.TimeoutSeconds;
      if (states[task.state]?.Type !== 'Task' || !taskTimeout)
        throw new Error(`${PLAN_CHANGE_DEFINITION_FILE} has no Task state ${task.state} with TimeoutSeconds`);
      const fn = handlerFunction(this, task.state, {
        entry: task.entry,
        timeout: Duration.seconds(taskTimeout - LAMBDA_MARGIN_SECONDS),
        environment: props.environment,
      });
      grantTable(props.table, fn, task.table);
      // Only a task that calls the processor may read (and knows) its API key.
      if (task.callsProcessor) {
        props.processorApiKey.grantRead(fn);
        fn.addEnvironment('PROCESSOR_API_KEY_ARN', props.processorApiKey.secretArn);
      }
      this.taskFunctions.set(task.state, fn);
    }

    const logGroup = new LogGroup(this, 'StateMachineLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      comment: 'Plan Changes: one execution per change, named after its id (docs/plan-changes.md).',
      // Inline (minified), so that the template carries the definition `cdk diff` shows and tests read.
      definitionBody: DefinitionBody.fromString(JSON.stringify(JSON.parse(definitionText))),
      definitionSubstitutions: Object.fromEntries(
        PLAN_CHANGE_TASKS.map((task) => [task.substitution, this.taskFunction(task.state).functionArn]),
      ),
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    const stack = Stack.of(this);
    for (const task of PLAN_CHANGE_TASKS) {
      const fn = this.taskFunction(task.state);
      fn.grantInvoke(this.stateMachine);
      const logicalId = stack.resolve((fn.node.defaultChild as CfnFunction).logicalId) as string;
      Validations.of(this.stateMachine).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
        reason: `Invoking ${task.state} is granted on that function and its versions (function:*); it reaches that one function only.`,
      });
    }
    Validations.of(this.stateMachine).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions writes its logs through CloudWatch Logs deliveries and its traces to X-Ray, whose actions take no resource ARN.',
    });
  }

  private taskFunction(state: string): NodejsFunction {
    const fn = this.taskFunctions.get(state);
    if (!fn) throw new Error(`no function for Task state ${state}`);
    return fn;
  }

  /** The ARN of every execution of this state machine (`execution:<name>:*`). */
  private executionsArn(): string {
    return Arn.format(
      {
        service: 'states',
        resource: 'execution',
        resourceName: `${this.stateMachine.stateMachineName}:*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      },
      Stack.of(this),
    );
  }

  /**
   * Lets `grantee` start executions only: the reconciler sweep starts those a confirm's start was
   * refused for (functions/plan-changes/start.ts).
   */
  grantStart(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['states:StartExecution'],
      resourceArns: [this.stateMachine.stateMachineArn],
    });
  }

  /** Lets `grantee` start executions, and stop and describe them (confirm, supersede, cancel). */
  grantStartStop(grantee: IGrantable & IConstruct): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['states:StartExecution'],
      resourceArns: [this.stateMachine.stateMachineArn],
    });
    Grant.addToPrincipal({
      grantee,
      actions: ['states:StopExecution', 'states:DescribeExecution'],
      resourceArns: [this.executionsArn()],
    });
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagName(grantee, Stack.of(this), this.executionsArn())}]`,
      reason:
        'Stopping and describing is granted on the executions of the Plan Change state machine only (execution:<name>:*); each execution is one change.',
    });
  }

  /**
   * The operators' alarms of the workflow, on their topic and dashboard: the processor refused a
   * billing commit (CommitBilling keeps retrying every 5 minutes; nothing rolls back), and any
   * execution failed.
   */
  addAlarms(operators: OperatorAlarms): { billingCommitRefused: Alarm; executionsFailed: Alarm } {
    const fiveMinutes = Duration.minutes(5);
    const alarm = (alarmId: string, description: string, metric: Metric) => {
      const created = new Alarm(this, alarmId, {
        alarmDescription: `${description} See docs/runbook.md, "Plan Changes".`,
        metric,
        threshold: 0,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new SnsAction(operators.topic));
      created.addOkAction(new SnsAction(operators.topic));
      return created;
    };
    const alarms = {
      billingCommitRefused: alarm(
        'BillingCommitRefused',
        'The processor refused a Plan Change billing commit; it is retried every 5 minutes.',
        new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: METRIC.planChangeBillingCommitRefused,
          dimensionsMap: { service: METRICS_SERVICE },
          statistic: Stats.SUM,
          period: fiveMinutes,
        }),
      ),
      executionsFailed: alarm(
        'ExecutionsFailed',
        'A Plan Change execution failed.',
        this.stateMachine.metricFailed({ statistic: Stats.SUM, period: fiveMinutes }),
      ),
    };
    operators.dashboard.addWidgets(
      ...Object.values(alarms).map(
        (created) =>
          new AlarmWidget({ alarm: created, title: `PlanChanges${created.node.id}`, width: 12, height: 6 }),
      ),
    );
    return alarms;
  }
}
