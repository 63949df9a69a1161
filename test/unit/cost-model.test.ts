import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  customMetricCount,
  DOCUMENTED_FIXED_RESOURCES,
  type FixedResources,
  fixedResources,
  monthlyBill,
  PRICES,
  printBill,
  SECRET_READS_PER_FUNCTION_MONTH,
  type TenantDayUsage,
  tracesRecordedPerDay,
} from '../bench/cost-model.ts';

// The AWS cost model shared by `npm run bench` and `npm run bench:scale` (test/bench/cost-model.ts).

const GB = 1024 ** 3;

const noUsage: TenantDayUsage = {
  apiRequests: 0,
  lambdaInvocations: 0,
  lambdaGbSeconds: 0,
  dynamoReadUnits: 0,
  dynamoWriteUnits: 0,
  sqsRequests: 0,
  emails: 0,
  stepFunctionTransitions: 0,
  kmsRequests: 0,
  secretsManagerCalls: 0,
  logBytes: 0,
  xrayTracesRecorded: 0,
  cloudFrontRequests: 0,
  cloudFrontBytesOut: 0,
  s3Requests: 0,
  processorCalls: 0,
};

const fixed: FixedResources = {
  ...DOCUMENTED_FIXED_RESOURCES,
  customMetrics: 36,
  source: 'test',
  fromTemplate: false,
};
const noFixed: FixedResources = {
  ...fixed,
  secrets: 0,
  kmsKeys: 0,
  alarms: 0,
  dashboards: 0,
  customMetrics: 0,
  secretReadingFunctions: 0,
};

const fleet = (tenants: number) => ({ tenants, dynamoBytesPerTenant: 0, s3BytesPerTenant: 0 });
const lineOf = (bill: ReturnType<typeof monthlyBill>, service: string, item: string) => {
  const found = bill.lines.find((line) => line.service === service && line.item.startsWith(item));
  if (!found) throw new Error(`no line ${service} ${item}`);
  return found;
};

describe('the monthly bill', () => {
  it('a month is thirty tenant-days per tenant', () => {
    const bill = monthlyBill({ ...noUsage, apiRequests: 100 }, fleet(1000), noFixed);
    const api = lineOf(bill, 'API Gateway', 'HTTP API requests');
    expect(api.count).toBeCloseTo((100 * 1000 * 30) / 1e6);
    expect(api.monthlyUsd).toBeCloseTo(3 * PRICES.httpApiPerMillionRequests);
  });

  it('every line is its unit price times its count, and the total is their sum', () => {
    const usage: TenantDayUsage = {
      apiRequests: 150,
      lambdaInvocations: 300,
      lambdaGbSeconds: 2,
      dynamoReadUnits: 300,
      dynamoWriteUnits: 20,
      sqsRequests: 2,
      emails: 0.1,
      stepFunctionTransitions: 0.02,
      kmsRequests: 1,
      secretsManagerCalls: 0.5,
      logBytes: 100_000,
      accessLogBytes: 20_000,
      xrayTracesRecorded: 10,
      cloudFrontRequests: 25,
      cloudFrontBytesOut: 250_000,
      s3Requests: 0.2,
      apiBytesOut: 40_000,
      processorCalls: 1,
    };
    const bill = monthlyBill(
      usage,
      { tenants: 2500, dynamoBytesPerTenant: 12_000, s3BytesPerTenant: 300_000 },
      fixed,
    );
    for (const line of bill.lines) expect(line.monthlyUsd).toBeCloseTo(line.unitPrice * line.count, 9);
    expect(bill.totalUsd).toBeCloseTo(
      bill.lines.reduce((sum, line) => sum + line.monthlyUsd, 0),
      9,
    );
    expect(bill.totalUsd).toBeGreaterThan(0);
  });

  it('the per-1,000 figure divides the total by tenants/1000', () => {
    const bill = monthlyBill({ ...noUsage, lambdaInvocations: 50 }, fleet(100_000), fixed);
    expect(bill.perThousandTenantsUsd).toBeCloseTo(bill.totalUsd / 100);
    expect(bill.tenants).toBe(100_000);
  });

  it('every service named in the issue has a line', () => {
    const bill = monthlyBill(noUsage, fleet(1000), fixed);
    const named = bill.lines.map((line) => `${line.service} ${line.item}`);
    for (const [service, item] of [
      ['API Gateway', 'HTTP API requests'],
      ['Lambda', 'requests'],
      ['Lambda', 'duration'],
      ['DynamoDB', 'reads'],
      ['DynamoDB', 'writes'],
      ['DynamoDB', 'storage'],
      ['DynamoDB', 'point-in-time recovery'],
      ['SQS', 'requests'],
      ['SES', 'emails'],
      ['Step Functions', 'standard transitions'],
      ['KMS', 'requests'],
      ['KMS', 'customer managed keys'],
      ['Secrets Manager', 'secrets'],
      ['Secrets Manager', 'API calls'],
      ['CloudWatch Logs', 'ingestion'],
      ['CloudWatch Logs', 'storage'],
      ['CloudWatch', 'custom metrics'],
      ['CloudWatch', 'alarms'],
      ['CloudWatch', 'dashboards'],
      ['X-Ray', 'traces recorded'],
      ['CloudFront', 'HTTPS requests'],
      ['CloudFront', 'data out'],
      ['S3', 'Standard storage'],
      ['S3', 'requests'],
    ] as const)
      expect(
        named.some((text) => text.startsWith(`${service} ${item}`)),
        `${service} ${item}`,
      ).toBe(true);
    for (const line of bill.lines) expect(line.unitPrice, `${line.service} ${line.item}`).toBeGreaterThan(0);
  });

  it('the fixed resources are billed whatever the tenants do', () => {
    const bill = monthlyBill(noUsage, fleet(1000), fixed);
    expect(lineOf(bill, 'Secrets Manager', 'secrets').monthlyUsd).toBeCloseTo(
      fixed.secrets * PRICES.secretPerMonth,
    );
    expect(lineOf(bill, 'KMS', 'customer managed keys').count).toBe(fixed.kmsKeys);
    expect(lineOf(bill, 'CloudWatch', 'alarms').count).toBe(fixed.alarms);
    expect(lineOf(bill, 'CloudWatch', 'dashboards').monthlyUsd).toBeCloseTo(
      fixed.dashboards * PRICES.dashboardPerMonth,
    );
    expect(lineOf(bill, 'CloudWatch', 'custom metrics').count).toBe(fixed.customMetrics);
    // Each secret-reading function's warm instance re-reads its secret every five minutes.
    expect(lineOf(bill, 'Secrets Manager', 'API calls').count).toBeCloseTo(
      (fixed.secretReadingFunctions * SECRET_READS_PER_FUNCTION_MONTH) / 10_000,
    );
  });

  it('table storage is billed once more for point-in-time recovery when it is on, and not when off', () => {
    const shape = { tenants: 1000, dynamoBytesPerTenant: 10 * 1024 * 1024, s3BytesPerTenant: 0 };
    const on = monthlyBill(noUsage, shape, fixed);
    const tableGb = (shape.dynamoBytesPerTenant * shape.tenants) / GB;
    expect(lineOf(on, 'DynamoDB', 'storage').count).toBeCloseTo(tableGb);
    expect(lineOf(on, 'DynamoDB', 'point-in-time recovery').count).toBeCloseTo(tableGb);
    const off = monthlyBill(noUsage, shape, { ...fixed, pointInTimeRecovery: false });
    expect(lineOf(off, 'DynamoDB', 'point-in-time recovery').monthlyUsd).toBe(0);
  });

  it('logs are stored for their retention: a day of function logs for its days, access logs for theirs', () => {
    const usage = { ...noUsage, logBytes: 3 * GB, accessLogBytes: 1 * GB };
    const bill = monthlyBill(usage, fleet(1), { ...fixed, logRetentionDays: 30, accessLogRetentionDays: 90 });
    expect(lineOf(bill, 'CloudWatch Logs', 'ingestion').count).toBeCloseTo(3 * 30);
    expect(lineOf(bill, 'CloudWatch Logs', 'storage').count).toBeCloseTo(2 * 30 + 1 * 90);
  });

  it('prints one line per bill line with its unit price, count and dollars, then the total and per 1,000', () => {
    const bill = monthlyBill({ ...noUsage, apiRequests: 100 }, fleet(100_000), fixed);
    const printed: string[] = [];
    printBill(bill, (line) => printed.push(line));
    for (const line of bill.lines) {
      const row = printed.find((text) =>
        text.trimStart().startsWith(`${line.service.padEnd(16)} ${line.item}`),
      );
      expect(row, line.item).toBeDefined();
      expect(row).toContain(line.monthlyUsd.toFixed(2));
      expect(row).toContain(line.unit);
    }
    expect(printed.some((text) => text.includes('total') && text.includes(bill.totalUsd.toFixed(2)))).toBe(
      true,
    );
    expect(printed.at(-1)).toContain(`$${bill.perThousandTenantsUsd.toFixed(2)}`);
  });
});

describe("X-Ray's default sampling rule", () => {
  it('records every request up to one a second per function, then 5% of the rest', () => {
    expect(tracesRecordedPerDay([1000])).toBe(1000);
    expect(tracesRecordedPerDay([86_400 + 20_000])).toBeCloseTo(86_400 + 1000);
    expect(tracesRecordedPerDay([86_400 + 20_000, 500])).toBeCloseTo(86_400 + 1000 + 500);
  });
});

describe('the fixed resources', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A cloud assembly of one root stack and one nested stack, as cdk synth writes it. */
  const fakeAssembly = (): string => {
    const directory = mkdtempSync(path.join(tmpdir(), 'cost-model-'));
    made.push(directory);
    mkdirSync(directory, { recursive: true });
    const write = (file: string, content: unknown) =>
      writeFileSync(path.join(directory, file), JSON.stringify(content));
    write('manifest.json', {
      artifacts: {
        Root: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Root.template.json' } },
        'Root.assets': { type: 'cdk:asset-manifest', properties: { file: 'Root.assets.json' } },
      },
    });
    write('Root.assets.json', {
      files: {
        a: { source: { path: 'RootNested.nested.template.json' } },
        b: { source: { path: 'asset.1234' } },
      },
    });
    write('Root.template.json', {
      Resources: {
        SecretA: { Type: 'AWS::SecretsManager::Secret' },
        SecretB: { Type: 'AWS::SecretsManager::Secret' },
        Key: { Type: 'AWS::KMS::Key' },
        AlarmA: { Type: 'AWS::CloudWatch::Alarm' },
        Board: { Type: 'AWS::CloudWatch::Dashboard' },
        Machine: { Type: 'AWS::StepFunctions::StateMachine' },
        Table: {
          Type: 'AWS::DynamoDB::Table',
          Properties: { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
        },
        SweepLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 14 } },
        Sweep: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            LoggingConfig: { LogGroup: { Ref: 'SweepLogs' } },
            Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'x', KEY_ARN: { Ref: 'SecretA' } } },
          },
        },
        AccessLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 60 } },
        Stage: {
          Type: 'AWS::ApiGatewayV2::Stage',
          Properties: { AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': ['AccessLogs', 'Arn'] } } },
        },
        Nested: {
          Type: 'AWS::CloudFormation::Stack',
          Properties: { Parameters: { referencetoRootSecretBRef: { Ref: 'SecretB' } } },
        },
      },
    });
    write('RootNested.nested.template.json', {
      Resources: {
        AlarmB: { Type: 'AWS::CloudWatch::Alarm' },
        RouteLogs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 14 } },
        Route: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            LoggingConfig: { LogGroup: { Ref: 'RouteLogs' } },
            Environment: {
              Variables: { POWERTOOLS_SERVICE_NAME: 'x', SECRET_ARN: { Ref: 'referencetoRootSecretBRef' } },
            },
          },
        },
        Plain: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { A: 'b' } } } },
      },
    });
    return directory;
  };

  it('are counted from the template: the root stack and its nested stacks', () => {
    const counted = fixedResources(fakeAssembly());
    expect(counted.fromTemplate).toBe(true);
    expect(counted).toMatchObject({
      secrets: 2,
      kmsKeys: 1,
      alarms: 2,
      dashboards: 1,
      stateMachines: 1,
      functions: 3,
      secretReadingFunctions: 2,
      logRetentionDays: 14,
      accessLogRetentionDays: 60,
      pointInTimeRecovery: true,
      xraySamplingRules: 0,
      // Route sets no system log level: Lambda writes its START/END/REPORT lines.
      lambdaSystemLines: true,
    });
    expect(counted.source).toContain('2 synthesized template(s)');
  });

  it("count Lambda's own lines only while some function of ours (not CDK's deploy-time ones) does not keep them from WARN", () => {
    const directory = fakeAssembly();
    const file = path.join(directory, 'RootNested.nested.template.json');
    const template = JSON.parse(readFileSync(file, 'utf8'));
    for (const resource of Object.values(template.Resources) as {
      Type: string;
      Properties: Record<string, unknown>;
    }[])
      if (
        resource.Type === 'AWS::Lambda::Function' &&
        JSON.stringify(resource.Properties).includes('POWERTOOLS')
      )
        resource.Properties.LoggingConfig = { LogFormat: 'JSON', SystemLogLevel: 'WARN' };
    writeFileSync(file, JSON.stringify(template));
    expect(fixedResources(directory).lambdaSystemLines).toBe(true);
    const root = path.join(directory, 'Root.template.json');
    const rootTemplate = JSON.parse(readFileSync(root, 'utf8'));
    for (const resource of Object.values(rootTemplate.Resources) as {
      Type: string;
      Properties?: Record<string, unknown>;
    }[])
      if (resource.Type === 'AWS::Lambda::Function')
        resource.Properties = { ...resource.Properties, LoggingConfig: { SystemLogLevel: 'WARN' } };
    writeFileSync(root, JSON.stringify(rootTemplate));
    expect(fixedResources(directory).lambdaSystemLines).toBe(false);
  });

  it('fall back to the documented constants without a cdk.out, and say so', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'cost-model-empty-'));
    made.push(empty);
    const counted = fixedResources(empty);
    expect(counted.fromTemplate).toBe(false);
    expect(counted.source).toContain('documented constants');
    expect(counted.secrets).toBe(DOCUMENTED_FIXED_RESOURCES.secrets);
  });

  it('count the custom metrics from the names the code emits, one dimension set each', () => {
    expect(customMetricCount()).toBeGreaterThan(20);
    expect(fixedResources(fakeAssembly()).customMetrics).toBe(customMetricCount());
  });
});
