import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { TABLE_DEFINITION } from '#store/table.ts';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { ALARM_THRESHOLDS } from '../../lib/infra/constructs/alarms.ts';
import { AUTHORIZER_CACHE_SECONDS, AUTHORIZER_IDENTITY_SOURCE } from '../../lib/infra/edge-session.ts';
import { PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { routes, servedPaths } from '../../lib/routes.ts';
import { isReadOnly } from '../../lib/table-access.ts';
import { nagViolations, synthesizedStack } from '../support/synthesized-stack.ts';

// The app as `cdk synth` makes it, bundled; synthesizing it ran cdk-nag (a policy validation
// plugin), whose findings fail the synth.
const { template, assemblyDirectory, acknowledgements } = synthesizedStack();

describe('the CDK stack', () => {
  it('has one table with PITR, retained on stack delete and replacement (not on the rollback of its creation), built from the table definition', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: Match.absent(),
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
        KeySchema: [
          { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      },
    });
  });

  it('has an HTTP API with a Lambda REQUEST authorizer, simple responses, cached briefly per Authorization value', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
      IdentitySource: [AUTHORIZER_IDENTITY_SOURCE],
      AuthorizerPayloadFormatVersion: '2.0',
    });
  });

  it('has exactly the routes of lib/routes.ts, at every path each answers at, each with its authorization', () => {
    const apiRoutes = template.findResources('AWS::ApiGatewayV2::Route');
    const routeKeys = Object.values(apiRoutes).map((resource) => resource.Properties.RouteKey as string);
    expect(routeKeys.sort()).toEqual(
      routes.flatMap((route) => servedPaths(route).map(({ path }) => `${route.method} ${path}`)).sort(),
    );
    for (const route of routes) {
      for (const { path } of servedPaths(route)) {
        const [found] = Object.values(apiRoutes).filter(
          (resource) => resource.Properties.RouteKey === `${route.method} ${path}`,
        );
        expect(found?.Properties.AuthorizationType).toBe(
          route.auth === 'none' ? 'NONE' : route.auth === 'iam' ? 'AWS_IAM' : 'CUSTOM',
        );
      }
    }
  });

  it("answers the specification's Credential paths with the same function as ours: one integration, no other function", () => {
    const apiRoutes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    const targetOf = (key: string) =>
      JSON.stringify(apiRoutes.find((resource) => resource.Properties.RouteKey === key)?.Properties.Target);
    for (const [ours, spec] of [
      ['POST /v1/credentials/{name}', 'POST /credentials/{name}'],
      ['GET /v1/credentials', 'GET /credentials'],
    ] as const) {
      expect(targetOf(spec), spec).toBeDefined();
      expect(targetOf(spec), spec).toBe(targetOf(ours));
    }
    // One function per route id (and the authorizer), whatever the paths.
    const routeFunctions = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) =>
      /^Api(PostCredential|GetCredentials)[A-Z0-9]/.test(id),
    );
    expect(routeFunctions.filter((id) => !id.includes('SpecPath'))).toHaveLength(routeFunctions.length);
    expect(routeFunctions.filter((id) => /^ApiPostCredential[0-9A-F]{8}$/.test(id))).toHaveLength(1);
    expect(routeFunctions.filter((id) => /^ApiGetCredentials[0-9A-F]{8}$/.test(id))).toHaveLength(1);
  });

  it('the operator refund route takes IAM-signed requests only (no Lambda authorizer), and reads the processor key', () => {
    const [refund] = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).filter(
      (resource) => resource.Properties.RouteKey === 'POST /ops/refunds',
    );
    expect(refund?.Properties.AuthorizationType).toBe('AWS_IAM');
    expect(refund?.Properties.AuthorizerId).toBeUndefined();
    const [, policy] =
      Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ApiPostOpsRefundServiceRoleDefaultPolicy'),
      ) ?? [];
    const document = JSON.stringify(policy?.Properties.PolicyDocument);
    expect(document).toContain('secretsmanager:GetSecretValue');
    expect(document).toContain('dynamodb:UpdateItem');
  });

  it('every API function knows the support address (CDK context supportEmail)', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('ApiGetBillingStatus'),
    );
    expect(functions).toHaveLength(1);
    expect(functions[0]?.[1].Properties.Environment.Variables.SUPPORT_EMAIL).toBe('support@synth-check.test');
  });

  it('has one Lambda function per route and per Plan Change task, plus the authorizer and the reconciler, all nodejs24.x on arm64', () => {
    // Besides ours, only the handler of the console files' deployment (aws-cdk-lib's, test/infra/console-hosting.test.ts).
    const deploymentHandlers = new Set(
      Object.values(template.findResources('Custom::CDKBucketDeployment')).map(
        (deployment) => deployment.Properties.ServiceToken['Fn::GetAtt'][0],
      ),
    );
    expect(deploymentHandlers.size).toBe(1);
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([id]) => !deploymentHandlers.has(id))
      .map(([, fn]) => fn);
    expect(functions).toHaveLength(routes.length + 2 + PLAN_CHANGE_TASKS.length);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('each function reads exactly the secrets and sends to exactly the queues its route declares', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const secretIds: Record<string, string> = {
      codeHostClientSecret: 'CodeHostClientSecret',
      processorApiKey: 'ProcessorApiKey',
      processorWebhookSecret: 'ProcessorWebhookSecret',
    };
    const readers = policies.filter(([, policy]) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('secretsmanager:GetSecretValue'),
    );
    const senders = policies.filter(([, policy]) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('sqs:SendMessage'),
    );
    for (const route of routes) {
      const [, policy] =
        policies.find(([id]) => id.startsWith(`Api${route.id}ServiceRoleDefaultPolicy`)) ?? [];
      const document = JSON.stringify(policy?.Properties.PolicyDocument ?? {});
      for (const [name, logicalId] of Object.entries(secretIds)) {
        expect(document.includes(logicalId), `${route.id} reads ${name}`).toBe(
          (route.secrets ?? []).includes(name as never),
        );
      }
      expect(document.includes('sqs:SendMessage'), `${route.id} sends`).toBe(
        (route.sendsTo ?? []).length > 0,
      );
    }
    // The reconciler reads the processor API key too, and the Plan Change tasks that call it.
    expect(readers).toHaveLength(
      routes.filter((r) => (r.secrets ?? []).length > 0).length +
        1 +
        PLAN_CHANGE_TASKS.filter((task) => task.callsProcessor).length,
    );
    expect(senders).toHaveLength(routes.filter((r) => (r.sendsTo ?? []).length > 0).length);
  });

  it('the reconciler runs every minute, one at a time, and may consume the queue, send mail and read the API key', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    const [reconcilerId, reconciler] = functions.find(([id]) => id.startsWith('ReconcilerSweep')) ?? [];
    // One at a time by the sweep lease (test/integration/sweep-lease.test.ts), not by reserved
    // concurrency: reserving any fails in accounts at the minimum concurrency quota.
    expect(reconciler?.Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(reconciler?.Properties.Timeout).toBe(60);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    const rules = Object.values(template.findResources('AWS::Events::Rule'));
    expect(JSON.stringify(rules[0]?.Properties.Targets)).toContain(reconcilerId);
    const [, policy] =
      Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ReconcilerSweepServiceRoleDefaultPolicy'),
      ) ?? [];
    const document = JSON.stringify(policy?.Properties.PolicyDocument);
    for (const action of [
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      // The intake's retry rule shortens a failed event's wait (and reads the queue's timeout).
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueAttributes',
      'ses:SendEmail',
      'dynamodb:UpdateItem',
      'secretsmanager:GetSecretValue',
    ]) {
      expect(document).toContain(action);
    }
    const [, webhookPolicy] =
      Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ApiProcessorWebhookServiceRoleDefaultPolicy'),
      ) ?? [];
    expect(JSON.stringify(webhookPolicy?.Properties.PolicyDocument)).toContain('lambda:InvokeFunction');
  });

  it('the processor event queue has a dead-letter queue, encryption and TLS only', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    const queues = Object.entries(template.findResources('AWS::SQS::Queue'));
    const [, main] = queues.find(([, queue]) => queue.Properties.RedrivePolicy) ?? [];
    expect(main?.Properties.SqsManagedSseEnabled).toBe(true);
    expect(main?.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(main?.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]).toMatch(/DeadLetters/);
    template.resourceCountIs('AWS::SQS::QueuePolicy', 2);
  });

  it('each route integrates its own function', () => {
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    const targets = integrations.map((integration) => JSON.stringify(integration.Properties.IntegrationUri));
    expect(new Set(targets).size).toBe(routes.length);
  });

  it('the webhook intake touches no tenant item: it verifies, queues and claims only the sweep nudge window', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const [, policy] =
      policies.find(([id]) => id.startsWith('ApiProcessorWebhookServiceRoleDefaultPolicy')) ?? [];
    const statements: { Action: string | string[]; Condition?: unknown }[] =
      policy?.Properties.PolicyDocument.Statement ?? [];
    expect(JSON.stringify(statements)).toContain('sqs:SendMessage');
    const onTable = statements.filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
    expect(onTable).toHaveLength(1);
    expect(onTable[0]?.Action).toBe('dynamodb:UpdateItem');
    expect(onTable[0]?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['SWEEP'] },
    });
  });

  it('grants read-only routes no write action on the table', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const readOnly = routes.filter((r) => r.table.actions.length > 0 && isReadOnly(r.table));
    expect(readOnly.length).toBeGreaterThan(10);
    for (const route of readOnly) {
      const [, policy] =
        policies.find(([id]) => id.startsWith(`Api${route.id}ServiceRoleDefaultPolicy`)) ?? [];
      const actions = JSON.stringify(policy?.Properties.PolicyDocument.Statement);
      expect(actions).toMatch(/dynamodb:(GetItem|Query)/);
      expect(actions).not.toMatch(
        /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|ConditionCheckItem)/,
      );
    }
  });

  it('passes cdk-nag AwsSolutions with no unsuppressed finding, every suppression with a reason', () => {
    expect(nagViolations(assemblyDirectory)).toEqual([]);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [rule, reason] of acknowledgements) {
      expect(rule).toMatch(/AwsSolutions-/);
      expect(reason.length, `reason for ${rule}`).toBeGreaterThan(30);
    }
  });

  it('cdk-nag really runs: a non-compliant resource fails the synth', () => {
    // Not bundled: cdk-nag reads the template, which is the same but for asset hashes.
    const { app: scratch } = buildApp(
      new App({ context: { ...synthCheckContext(), 'aws:cdk:bundling-stacks': [] } }),
    );
    const extra = new Stack(scratch, 'NagProbe');
    new Table(extra, 'NoBackups', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
    expect(() => scratch.synth()).toThrow(/AwsSolutions-DDB3/);
  }, 120_000);
});

describe('the operators alarms', () => {
  type Resource = { Properties: Record<string, unknown> };
  const alarmNamed = (id: string): Resource => {
    const found = Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(([logicalId]) =>
      new RegExp(`^Alarms${id}[0-9A-F]{8}$`).test(logicalId),
    );
    expect(found, `alarm ${id}`).toHaveLength(1);
    return found[0]?.[1] as Resource;
  };
  const topicId = () => {
    const [id] = Object.keys(template.findResources('AWS::SNS::Topic'));
    return id;
  };
  const notifiesTheTopic = (alarm: Resource) => {
    expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId() }]);
    expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId() }]);
  };

  it('has exactly fourteen alarms (two for Plan Changes), each notifying the one alarm topic', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 14);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')))
      notifiesTheTopic(alarm as Resource);
  });

  const AT_LEAST = 'GreaterThanOrEqualToThreshold';
  /** An alarm on a metric of ours: summed over `period` seconds. */
  const ours = (metric: string, period: number, threshold: number, more: Record<string, unknown> = {}) => ({
    Namespace: 'StackControlPlane',
    MetricName: metric,
    Statistic: 'Sum',
    Period: period,
    Threshold: threshold,
    ComparisonOperator: AT_LEAST,
    ...more,
  });
  const SERVICE = { Dimensions: [{ Name: 'service', Value: 'stack-control-plane' }] };
  const lambdaOrApi = (namespace: string, metric: string, threshold: number) => ({
    Namespace: namespace,
    MetricName: metric,
    Statistic: 'Sum',
    Period: 300,
    Threshold: threshold,
    ComparisonOperator: AT_LEAST,
  });
  /** Each alarm: its id, what it watches, its properties, and what its dimensions name (if not ours). */
  const ALARMS: [string, string, Record<string, unknown>, RegExp?][] = [
    [
      'DeadLetters',
      'any message visible in the dead-letter queue (>= 1)',
      {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Threshold: ALARM_THRESHOLDS.deadLetters,
        ComparisonOperator: AT_LEAST,
      },
      /DeadLetters/,
    ],
    [
      'AddedStackChargeTakenBack',
      'any added Stack charge taken back in 5 minutes (our metric)',
      ours('AddedStackChargeTakenBack', 300, 1, SERVICE),
    ],
    [
      'ReconcileFailures',
      '>= 5 failed tenant reconciliations in 5 minutes (our metric)',
      ours('ReconcileFailures', 300, 5, { ...SERVICE, TreatMissingData: 'notBreaching' }),
    ],
    [
      'SweepErrors',
      ">= 2 of the reconciler Lambda's Errors in 5 minutes",
      lambdaOrApi('AWS/Lambda', 'Errors', 2),
      /ReconcilerSweep/,
    ],
    [
      'NoSweepCompleted',
      'fewer than 1 SweepCompleted in 10 minutes, missing data breaching',
      ours('SweepCompleted', 600, 1, {
        ...SERVICE,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
      }),
    ],
    [
      'WebhookSignatureFailures',
      '>= 10 refused signatures in 5 minutes',
      ours('WebhookSignatureFailures', 300, 10),
    ],
    [
      'EmailsParked',
      'any email parked as failed after its last attempt in 5 minutes (our metric)',
      ours('EmailsParked', 300, 1, { ...SERVICE, TreatMissingData: 'notBreaching' }),
    ],
    [
      'SecretNotSet',
      'any use of a secret still holding its generated placeholder in 5 minutes (our metric)',
      ours('SecretsNotSet', 300, 1, { ...SERVICE, TreatMissingData: 'notBreaching' }),
    ],
    [
      'NoCapacity',
      'any checkout refused for no place in the Home Region in 5 minutes (our metric)',
      ours('CheckoutNoCapacity', 300, 1, { ...SERVICE, TreatMissingData: 'notBreaching' }),
    ],
    [
      'NoPlaceablePlan',
      'no Plan placeable in the Home Region at any sweep of 10 minutes (our gauge, its maximum below 1)',
      ours('HomeRegionPlaceablePlans', 600, 1, {
        ...SERVICE,
        Statistic: 'Maximum',
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'notBreaching',
      }),
    ],
    [
      'ApiDefects',
      'any 500 of a defect of ours in 5 minutes (our metric ApiUnhandledErrors, not a retryable 503)',
      ours('ApiUnhandledErrors', 300, 1, { ...SERVICE, TreatMissingData: 'notBreaching' }),
    ],
    [
      'Api5xx',
      ">= 5 of the HTTP API's 5xx answers in 5 minutes",
      lambdaOrApi('AWS/ApiGateway', '5xx', 5),
      /ApiHttpApi/,
    ],
  ];
  it.each(ALARMS)('alarm %s: %s', (id, _what, properties, dimensions) => {
    const alarm = alarmNamed(id);
    expect(alarm.Properties).toMatchObject(properties);
    if (dimensions) expect(JSON.stringify(alarm.Properties.Dimensions)).toMatch(dimensions);
  });

  it('the dead-letter alarm fires on the first message', () => {
    expect(ALARM_THRESHOLDS.deadLetters).toBe(1);
  });

  it('the alarm topic accepts TLS only; without alarmEmail it has no subscription', () => {
    const policies = Object.values(template.findResources('AWS::SNS::TopicPolicy'));
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('one dashboard shows every alarm', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    for (const logicalId of Object.keys(template.findResources('AWS::CloudWatch::Alarm')))
      expect(body, logicalId).toContain(logicalId);
  });

  it('the CDK context alarmEmail subscribes that address to the alarm topic (and sesMaxSendRate paces the outbox)', () => {
    const { stack } = buildApp(
      new App({
        // Skip bundling the functions: only the topic and the reconciler's environment matter here.
        context: {
          ...synthCheckContext(),
          alarmEmail: 'ops@synth-check.test',
          sesMaxSendRate: '14',
          'aws:cdk:bundling-stacks': [],
        },
      }),
    );
    const withEmail = Template.fromStack(stack);
    withEmail.resourceCountIs('AWS::SNS::Subscription', 1);
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@synth-check.test',
    });
    const reconciler = Object.entries(withEmail.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('ReconcilerSweep'),
    );
    expect(reconciler).toHaveLength(1);
    expect(reconciler[0]?.[1].Properties.Environment.Variables.SES_MAX_SEND_RATE).toBe('14');
    // Without the setting the function's default (1, the SES sandbox's rate) applies.
    const [, synthesized] = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('ReconcilerSweep'),
    ) ?? [undefined, undefined];
    expect(synthesized?.Properties.Environment.Variables.SES_MAX_SEND_RATE).toBeUndefined();
  }, 120_000);
});

describe('the template size', () => {
  it("stays under CloudFormation's 500 resources a stack (each route adds its Lambda, role, policy, integration, route and permission)", () => {
    const count = Object.keys(template.toJSON().Resources ?? {}).length;
    // What a new route costs, so the headroom is visible in the test's output.
    console.info(`template resources: ${count} of 500 (${routes.length} routes)`);
    expect(count).toBeLessThan(500);
  });
});
