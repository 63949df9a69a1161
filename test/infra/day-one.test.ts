import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { CfnSecret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/deployment.ts';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { SYNTH_CHECK_STAGE } from '../../lib/infra/settings.ts';
import { synthesizedStack } from '../support/synthesized-stack.ts';

/**
 * Issue 36: the day of a first real deploy, read on the synthesized template. What every runbook
 * command needs is an output; the stateful resources keep their logical ids and leave nothing
 * behind when their first deploy is rolled back; the secrets name their stage; each grant is what
 * the code does in the cloud (SES in the sandbox); the access log is one HTTP APIs can write; a
 * stage without capacity is warned about and rings an alarm.
 */

const { template, rootTemplate } = synthesizedStack();

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
const resources = () => template.toJSON().Resources as Record<string, Resource>;

/**
 * Another stage, without `capacity`: its construct tree only (unbundled, not synthesized: what
 * differs by stage is read from the constructs), for the secrets' words and the synth's warning.
 */
const otherStage = () => {
  const context = synthCheckContext({ 'aws:cdk:bundling-stacks': [], stage: 'second' });
  const stages = context.stages as Record<string, Record<string, unknown>>;
  const { capacity: _capacity, ...second } = stages[SYNTH_CHECK_STAGE] ?? {};
  const { stack } = buildApp(new App({ context: { ...context, stages: { ...stages, second } } }));
  const descriptions = stack.node
    .findAll()
    .filter((construct): construct is CfnSecret => construct instanceof CfnSecret)
    .map((secret) => String(stack.resolve(secret.description)));
  const warnings = stack.node.metadata
    .filter((entry) => entry.type === 'aws:cdk:warning')
    .map((entry) => String(entry.data));
  return { descriptions, warnings };
};
let other: ReturnType<typeof otherStage> | undefined;
const second = () => {
  other ??= otherStage();
  return other;
};

describe('outputs: what every runbook command needs', () => {
  it('the root stack outputs each name the ops CLI and the smoke test read (lib/deployment.ts)', () => {
    const outputs = rootTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs).sort()).toEqual(Object.values(STACK_OUTPUTS).sort());
  });

  it('each names the resource it says: the table, the queues, the state machine, the buckets, the distribution, the secrets', () => {
    const outputs = rootTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    const byType = (type: string) =>
      Object.entries(resources())
        .filter(([, resource]) => resource.Type === type)
        .map(([id]) => id);
    const refersTo = (output: string) => JSON.stringify(outputs[output]?.Value);
    expect(refersTo('TableName')).toBe(JSON.stringify({ Ref: 'DataTableFDBAD0F2' }));
    expect(refersTo('ExportsBucketName')).toBe(JSON.stringify({ Ref: 'ExportsArchives25DC4B19' }));
    expect(refersTo('ConsoleBucketName')).toBe(JSON.stringify({ Ref: 'ConsoleFiles2D43986C' }));
    expect(refersTo('ConsoleDistributionId')).toBe(JSON.stringify({ Ref: 'ConsoleDistribution022D3262' }));
    const [queue, deadLetters] = [
      byType('AWS::SQS::Queue').find((id) => resources()[id]?.Properties.RedrivePolicy),
      byType('AWS::SQS::Queue').find((id) => !resources()[id]?.Properties.RedrivePolicy),
    ];
    expect(refersTo('ProcessorEventsQueueUrl')).toBe(JSON.stringify({ Ref: queue }));
    expect(refersTo('ProcessorEventsDeadLetterQueueUrl')).toBe(JSON.stringify({ Ref: deadLetters }));
    expect(refersTo('PlanChangeStateMachineArn')).toBe(
      JSON.stringify({ Ref: byType('AWS::StepFunctions::StateMachine')[0] }),
    );
    for (const [output, secret] of [
      ['CodeHostClientSecretArn', 'CodeHostClientSecret'],
      ['ProcessorApiKeyArn', 'ProcessorApiKey'],
      ['ProcessorWebhookSecretArn', 'ProcessorWebhookSecret'],
      ['ExportsSigningKeyArn', 'ExportsSigningKey'],
    ] as const)
      expect(refersTo(output)).toMatch(new RegExp(`^\\{"Ref":"${secret}[0-9A-F]{8}"\\}$`));
    // Every alarm, by name, for the smoke test's "no alarm in ALARM".
    const alarms = byType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(5);
    for (const alarm of alarms) expect(refersTo('AlarmNames')).toContain(`{"Ref":"${alarm}"}`);
  });
});

describe('retries and teardown', () => {
  it('the table, the key, the buckets and the distribution keep their logical ids (a new id would replace them)', () => {
    const pinned = {
      DataTableFDBAD0F2: 'AWS::DynamoDB::Table',
      CredentialsKey841FDBB1: 'AWS::KMS::Key',
      ExportsArchives25DC4B19: 'AWS::S3::Bucket',
      ConsoleFiles2D43986C: 'AWS::S3::Bucket',
      ConsoleDistribution022D3262: 'AWS::CloudFront::Distribution',
    };
    for (const [id, type] of Object.entries(pinned)) expect(resources()[id]?.Type, id).toBe(type);
    // And they are the only ones of their kind: none was added beside them under a new id.
    for (const type of new Set(Object.values(pinned)))
      expect(
        Object.entries(resources())
          .filter(([, resource]) => resource.Type === type)
          .map(([id]) => id)
          .sort(),
      ).toEqual(
        Object.entries(pinned)
          .filter(([, t]) => t === type)
          .map(([id]) => id)
          .sort(),
      );
  });

  it('what holds data is retained on delete and replacement, but deleted when the deploy that created it rolls back', () => {
    for (const id of [
      'DataTableFDBAD0F2',
      'CredentialsKey841FDBB1',
      'ExportsArchives25DC4B19',
      'ConsoleFiles2D43986C',
    ]) {
      expect(resources()[id]?.DeletionPolicy, id).toBe('RetainExceptOnCreate');
      expect(resources()[id]?.UpdateReplacePolicy, id).toBe('Retain');
    }
    // No resource is kept by a plain Retain (the console files' deployment's log group was): a
    // failed first deploy would leave it, and each retry another; a deleted stage too.
    expect(
      Object.entries(resources())
        .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
        .map(([id]) => id),
    ).toEqual([]);
    // Deletion protection would fail that rollback: point-in-time recovery keeps the data instead.
    expect(resources().DataTableFDBAD0F2?.Properties.DeletionProtectionEnabled).toBeUndefined();
    expect(resources().DataTableFDBAD0F2?.Properties.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
    });
  });
});

describe('secrets carry their stage', () => {
  const secrets = (t: Template) =>
    Object.values(t.findResources('AWS::SecretsManager::Secret')) as {
      Properties: { Name: unknown; Description: string };
    }[];

  it("each name starts with the stage's stack and ends with a part of the stack id (new at each creation); each description names the stage and its `secrets set`", () => {
    const found = secrets(template);
    expect(found).toHaveLength(4);
    for (const { Properties } of found) {
      const name = JSON.stringify(Properties.Name);
      expect(name).toContain('"StackControlPlane-synth-check/');
      expect(name).toContain('{"Ref":"AWS::StackId"}');
      expect(Properties.Description).toContain('stage "synth-check"');
      expect(Properties.Description).toMatch(/npm run ops -- secrets set [a-z-]+ --stage synth-check/);
    }
  });

  it("another stage's secrets say its own stage, so no description reads the same in both", () => {
    const theirs = second().descriptions;
    expect(theirs).toHaveLength(4);
    const ours = secrets(template).map(({ Properties }) => Properties.Description);
    for (const description of theirs) {
      expect(description).toContain('stage "second"');
      expect(ours).not.toContain(description);
    }
  }, 300_000);
});

describe('capacity on day one', () => {
  it('a stage without initial capacity is warned about at synth, saying what to set and run', () => {
    const { warnings } = second();
    expect(warnings).toEqual([
      expect.stringContaining('Stage "second" has no initial capacity (context "capacity")'),
    ]);
    expect(warnings[0]).toContain('npm run ops -- capacity seed --stage second');
  }, 300_000);

  it('the synth-check stage, which has one, is not', () => {
    expect(JSON.stringify(template.toJSON())).not.toContain('has no initial capacity');
  });

  it('an alarm rings on the first checkout that found no place in the Home Region', () => {
    const [alarm] = Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(([id]) =>
      id.startsWith('AlarmsNoCapacity'),
    );
    expect(alarm?.[1].Properties).toMatchObject({
      MetricName: 'CheckoutNoCapacity',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('least privilege, finished', () => {
  it('the outbox may send through SES from mailFrom only, on any identity of the account and region (sandbox recipients are identities too)', () => {
    const [, policy] =
      Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ReconcilerSweepServiceRoleDefaultPolicy'),
      ) ?? [];
    const ses = ((policy?.Properties.PolicyDocument.Statement ?? []) as { Action: unknown }[]).filter(
      (statement) => JSON.stringify(statement.Action).includes('ses:'),
    );
    expect(ses).toEqual([
      {
        Action: 'ses:SendEmail',
        Effect: 'Allow',
        Resource: 'arn:aws:ses:eu-west-1:000000000000:identity/*',
        Condition: { StringEquals: { 'ses:FromAddress': 'billing@synth-check.test' } },
      },
    ]);
  });

  /**
   * The variables an HTTP API's access log may use (API Gateway's "Customize HTTP API access logs").
   * REST APIs have others (`$context.resourcePath`, `$context.identity.user`...): a stage whose
   * format names one is refused or logs nothing useful.
   */
  const HTTP_API_CONTEXT_VARIABLES = new Set([
    'accountId',
    'apiId',
    'authorizer.error',
    'awsEndpointRequestId',
    'awsEndpointRequestId2',
    'customDomain.basePathMatched',
    'dataProcessed',
    'domainName',
    'domainPrefix',
    'error.message',
    'error.messageString',
    'error.responseType',
    'extendedRequestId',
    'httpMethod',
    'identity.accountId',
    'identity.caller',
    'identity.cognitoAuthenticationProvider',
    'identity.cognitoAuthenticationType',
    'identity.cognitoIdentityId',
    'identity.cognitoIdentityPoolId',
    'identity.principalOrgId',
    'identity.clientCert.clientCertPem',
    'identity.clientCert.subjectDN',
    'identity.clientCert.issuerDN',
    'identity.clientCert.serialNumber',
    'identity.clientCert.validity.notBefore',
    'identity.clientCert.validity.notAfter',
    'identity.sourceIp',
    'identity.user',
    'identity.userAgent',
    'identity.userArn',
    'integration.error',
    'integration.integrationStatus',
    'integration.latency',
    'integration.requestId',
    'integration.status',
    'integrationErrorMessage',
    'integrationLatency',
    'integrationStatus',
    'path',
    'protocol',
    'requestId',
    'requestTime',
    'requestTimeEpoch',
    'responseLatency',
    'responseLength',
    'routeKey',
    'stage',
    'status',
  ]);

  it('the access log names only variables HTTP APIs define, as one JSON object with the request id', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const format = stages[0]?.Properties.AccessLogSettings.Format as string;
    const fields = JSON.parse(format) as Record<string, string>;
    const variables = [...format.matchAll(/\$context\.([A-Za-z0-9.]+)/g)].map((match) => match[1] ?? '');
    expect(variables.length).toBeGreaterThan(5);
    expect(variables.filter((variable) => !HTTP_API_CONTEXT_VARIABLES.has(variable))).toEqual([]);
    expect(Object.values(fields)).toContain('$context.requestId');
    expect(variables).not.toContain('resourcePath');
  });
});
