import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { METRIC, TENANTS_MOVED_TO } from '../../functions/ports/metrics.ts';
import { REPO_ROOT } from '../../lib/constants.ts';

/**
 * The one AWS cost model of the control plane (issue 23), shared by `npm run bench` and
 * `npm run bench:scale`: what one tenant costs in a day (TenantDayUsage, measured by a bench), the
 * fleet's shape, and the stack's fixed resources (counted from the synthesized templates) make a
 * monthly bill of one line per priced item. Pure: no I/O but reading cdk.out in fixedResources.
 *
 * A month is 30 days. Free tiers are left out (they are per account and small at this scale).
 * Volume tiers are left out too: every count is billed at the first tier's price, which is the
 * highest (an overstatement where a count passes a tier, e.g. API Gateway above 300 million).
 */

/** What one tenant costs in one day, on average, counted (not guessed) where a bench can measure it. */
export interface TenantDayUsage {
  /** API Gateway HTTP API requests (tenant API, Dispatcher polls and reports, webhooks). */
  apiRequests: number;
  /** Every function run, authorizer runs and sweep runs' share included. */
  lambdaInvocations: number;
  /** Billed duration x memory (GB), arm64. */
  lambdaGbSeconds: number;
  /** On-demand read request units. */
  dynamoReadUnits: number;
  /** On-demand write request units. */
  dynamoWriteUnits: number;
  sqsRequests: number;
  /** SES messages. */
  emails: number;
  /** Standard workflow state transitions. */
  stepFunctionTransitions: number;
  kmsRequests: number;
  secretsManagerCalls: number;
  /** CloudWatch Logs ingested (function logs, EMF metric lines, API access logs). */
  logBytes: number;
  /** The part of logBytes that is API access logs (kept longer: FixedResources.accessLogRetentionDays). */
  accessLogBytes?: number;
  xrayTracesRecorded: number;
  cloudFrontRequests: number;
  cloudFrontBytesOut: number;
  /** S3 requests, billed at the PUT/POST/LIST price (GETs cost a twelfth of it: an overstatement). */
  s3Requests: number;
  /** Bytes the API sends straight to the internet (Dispatcher and webhook answers; not through CloudFront). */
  apiBytesOut?: number;
  /** Not billed by AWS; carried for the report. */
  processorCalls: number;
}

export interface FleetShape {
  tenants: number;
  /** Table storage (items + GSIs). */
  dynamoBytesPerTenant: number;
  /** Exports, console assets share. */
  s3BytesPerTenant: number;
}

export interface BillLine {
  service: string;
  item: string;
  unit: string;
  unitPrice: number;
  count: number;
  monthlyUsd: number;
}

export interface Bill {
  tenants: number;
  lines: BillLine[];
  totalUsd: number;
  perThousandTenantsUsd: number;
}

export const DAYS_PER_MONTH = 30;
const GB = 1024 ** 3;

/**
 * Every unit price, in USD, on-demand, region eu-west-1 (Ireland), as published by AWS on its
 * pricing pages and known to us as of `asOf`. Not re-read since: check the pricing pages (or the
 * AWS Pricing Calculator) before quoting a figure, and change it here only.
 */
export const PRICES = {
  region: 'eu-west-1',
  asOf: '2025-06-01',
  /** API Gateway HTTP API, per million requests (first 300 million a month; $1.00 above, eu-west-1). */
  httpApiPerMillionRequests: 1.11,
  /** Data transfer out of the region to the internet, per GB (first 10 TB a month). */
  dataTransferOutPerGb: 0.09,
  /** Lambda, per million requests. */
  lambdaPerMillionRequests: 0.2,
  /** Lambda duration on Arm (Graviton2), per GB-second (first 7.5 billion GB-s a month). */
  lambdaPerGbSecondArm: 0.0000133334,
  /**
   * DynamoDB on-demand, per million read / write request units: the eu-west-1 prices after the
   * November 2024 reduction (us-east-1: $0.125 / $0.625). Unsure to the third decimal.
   */
  dynamoPerMillionReadUnits: 0.1415,
  dynamoPerMillionWriteUnits: 0.7068,
  /** DynamoDB Standard table class storage, per GB-month (first 25 GB free: not counted). */
  dynamoStoragePerGbMonth: 0.283,
  /** DynamoDB continuous backups (point-in-time recovery), per GB-month of table size (us-east-1 $0.20; eu-west-1 unsure). */
  dynamoPitrPerGbMonth: 0.2264,
  /** SQS standard queues, per million requests (64 KB chunks). */
  sqsPerMillionRequests: 0.4,
  /** SES outbound email, per 1,000 messages (attachments' data not counted: ours have none). */
  sesPerThousandEmails: 0.1,
  /** Step Functions standard workflows, per 1,000 state transitions. */
  stepFunctionsPerThousandTransitions: 0.025,
  /** KMS, per customer managed key a month (rotation keeps one price for its first rotations, then adds: unsure). */
  kmsKeyPerMonth: 1,
  /** KMS, per 10,000 requests (symmetric). */
  kmsPer10kRequests: 0.03,
  /** Secrets Manager, per secret a month. */
  secretPerMonth: 0.4,
  /** Secrets Manager, per 10,000 API calls. */
  secretsManagerPer10kCalls: 0.05,
  /**
   * CloudWatch Logs, Standard class, ingestion per GB (eu-west-1; Lambda's own logs are tiered
   * since May 2025 and start at this price, so the first tier is what we bill). Unsure: $0.57.
   */
  logsIngestionPerGb: 0.57,
  /** CloudWatch Logs storage (archived), per GB-month; billed here uncompressed (an overstatement). */
  logsStoragePerGbMonth: 0.03,
  /** CloudWatch custom metrics (EMF included), per metric a month (first 10,000). */
  customMetricPerMonth: 0.3,
  /** CloudWatch standard-resolution alarm, per alarm metric a month. */
  alarmPerMonth: 0.1,
  /** CloudWatch dashboard, per dashboard a month (the first three are free: not counted). */
  dashboardPerMonth: 3,
  /** X-Ray, per million traces recorded (retrieval and scans not counted). */
  xrayPerMillionTracesRecorded: 5,
  /** CloudFront, HTTPS requests from Europe, per 10,000. */
  cloudFrontPer10kHttpsRequests: 0.012,
  /** CloudFront, data transfer out to the internet from Europe, per GB (first 10 TB). */
  cloudFrontPerGbOut: 0.085,
  /** S3 Standard storage, per GB-month (first 50 TB, eu-west-1). */
  s3StandardPerGbMonth: 0.023,
  /** S3 Standard PUT, COPY, POST, LIST requests, per 1,000 (GET: $0.0004). */
  s3PerThousandRequests: 0.005,
} as const;

/**
 * X-Ray's default sampling rule, which the stack uses (it creates no AWS::XRay::SamplingRule; every
 * function has active tracing and Lambda samples): the first request each second (the reservoir)
 * and 5% of the others. We apply the reservoir per function, as Lambda samples each function on
 * its own (unsure: an account-wide reservoir would record fewer).
 */
export const XRAY_DEFAULT_RULE = { reservoirPerSecond: 1, fixedRate: 0.05 } as const;

/** Traces the default rule records in a day from each traced function's invocations that day. */
export const tracesRecordedPerDay = (invocationsPerDayByFunction: readonly number[]): number =>
  invocationsPerDayByFunction.reduce((sum, invocations) => {
    const reservoir = Math.min(invocations, XRAY_DEFAULT_RULE.reservoirPerSecond * 86_400);
    return sum + reservoir + XRAY_DEFAULT_RULE.fixedRate * (invocations - reservoir);
  }, 0);

/**
 * Bytes Lambda itself writes per invocation while its system log level is INFO (START, END and
 * REPORT with its X-Ray line; lines of real length): what `lambdaSystemLogBytes` bills.
 */
export const LAMBDA_SYSTEM_LINES_BYTES = [
  'START RequestId: 8f5c2a4e-0b1d-4c3e-9a7f-1d2e3f4a5b6c Version: $LATEST\n',
  'END RequestId: 8f5c2a4e-0b1d-4c3e-9a7f-1d2e3f4a5b6c\n',
  'REPORT RequestId: 8f5c2a4e-0b1d-4c3e-9a7f-1d2e3f4a5b6c\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 98 MB\t\n',
  'XRAY TraceId: 1-6745a1b2-0123456789abcdef01234567\tSegmentId: 0123456789abcdef\tSampled: false\t\n',
].join('').length;

/** Lambda's own log bytes per invocation: none where every function keeps them from WARN (the template says). */
export const lambdaSystemLogBytes = (fixed: Pick<FixedResources, 'lambdaSystemLines'>): number =>
  fixed.lambdaSystemLines ? LAMBDA_SYSTEM_LINES_BYTES : 0;

/**
 * One API access log line as the stage writes it (AccessLogFormat.jsonWithStandardFields), with
 * values of their real length: its bytes are what each API request adds to the access log group.
 */
export const API_ACCESS_LINE_BYTES = JSON.stringify({
  requestId: 'Ab3Cd4EfGhIJKlM=',
  ip: '203.0.113.10',
  user: '-',
  caller: '-',
  requestTime: '26/Nov/2026:12:00:00 +0000',
  httpMethod: 'GET',
  resourcePath: '/v1/dispatcher/desired-state',
  status: '304',
  protocol: 'HTTP/1.1',
  responseLength: '0',
}).length;

/** The stack's resources billed by the month whatever the number of tenants. */
export interface FixedResources {
  /** Where the counts come from: the templates read, or the documented constants. */
  source: string;
  /** False when cdk.out was missing and the constants below stood in. */
  fromTemplate: boolean;
  secrets: number;
  kmsKeys: number;
  alarms: number;
  dashboards: number;
  /** Metric names x dimension sets the code emits (functions/ports/metrics.ts): the template cannot say. */
  customMetrics: number;
  stateMachines: number;
  functions: number;
  /** Functions that read a secret (each warm instance reads each of its secrets every 5 minutes). */
  secretReadingFunctions: number;
  /** Retention of the functions' log groups (the most common one), days. */
  logRetentionDays: number;
  /** Retention of the API's access log group, days. */
  accessLogRetentionDays: number;
  pointInTimeRecovery: boolean;
  /** Custom X-Ray sampling rules (0: the default rule). */
  xraySamplingRules: number;
  cloudFrontDistributions: number;
  /**
   * Whether Lambda writes its own START, END and REPORT lines for every invocation (system log level
   * INFO, the default): false when every function sets its system log level to WARN.
   */
  lambdaSystemLines: boolean;
}

/**
 * What `npm run synth -- -c stage=synth-check` gave on 2026-11-26, for when cdk.out is missing.
 * fixedResources says when they are used; re-synthesize rather than trust them.
 */
export const DOCUMENTED_FIXED_RESOURCES: Omit<FixedResources, 'source' | 'fromTemplate' | 'customMetrics'> = {
  secrets: 4,
  kmsKeys: 1,
  alarms: 11,
  dashboards: 1,
  stateMachines: 1,
  functions: 60,
  secretReadingFunctions: 15,
  logRetentionDays: 30,
  accessLogRetentionDays: 90,
  pointInTimeRecovery: true,
  xraySamplingRules: 0,
  cloudFrontDistributions: 1,
  lambdaSystemLines: false,
};

/** Custom metrics: every name the code emits, each with its one dimension set (`service`). */
export const customMetricCount = (): number => {
  const names = new Set<string>([...Object.values(METRIC), ...Object.values(TENANTS_MOVED_TO)]);
  const dimensionSets = 1;
  return names.size * dimensionSets;
};

type Resource = { Type?: string; Properties?: Record<string, unknown> };
type Template = { Resources?: Record<string, Resource> };

/** The templates of the last synth in `directory`: its manifest's stacks and their nested stacks. */
const templateFiles = (directory: string): string[] => {
  const manifest = JSON.parse(readFileSync(path.join(directory, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type?: string; properties?: { templateFile?: string; file?: string } }>;
  };
  const files: string[] = [];
  for (const artifact of Object.values(manifest.artifacts ?? {})) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile)
      files.push(artifact.properties.templateFile);
    if (artifact.type === 'cdk:asset-manifest' && artifact.properties?.file) {
      const assets = JSON.parse(readFileSync(path.join(directory, artifact.properties.file), 'utf8')) as {
        files?: Record<string, { source?: { path?: string } }>;
      };
      for (const asset of Object.values(assets.files ?? {}))
        if (asset.source?.path?.endsWith('.nested.template.json')) files.push(asset.source.path);
    }
  }
  return files;
};

const mostCommon = (values: number[], fallback: number): number => {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort(([, a], [, b]) => b - a)[0]?.[0] ?? fallback;
};

/**
 * The fixed resources counted from the synthesized templates in `templateDir` (cdk.out: the root
 * stack and its nested stacks, as its manifest lists them); custom metrics from the code. Without
 * a cdk.out, the documented constants, and `source` says so.
 */
export const fixedResources = (templateDir = path.join(REPO_ROOT, 'cdk.out')): FixedResources => {
  const customMetrics = customMetricCount();
  if (!existsSync(path.join(templateDir, 'manifest.json')))
    return {
      ...DOCUMENTED_FIXED_RESOURCES,
      customMetrics,
      fromTemplate: false,
      source: `documented constants: no synthesized templates in ${templateDir} (run npm run synth -- -c stage=synth-check)`,
    };
  const files = templateFiles(templateDir);
  const resources = files.flatMap((file) =>
    Object.entries(
      (JSON.parse(readFileSync(path.join(templateDir, file), 'utf8')) as Template).Resources ?? {},
    ),
  );
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);
  const secretIds = ofType('AWS::SecretsManager::Secret').map(([id]) => id);
  // A secret's ARN reaches a function as a Ref to the secret, or (in a nested stack) to the
  // parameter its parent stack passes the secret's Ref in.
  const secretNames = [
    ...secretIds,
    ...ofType('AWS::CloudFormation::Stack').flatMap(([, nested]) =>
      Object.entries((nested.Properties?.Parameters as Record<string, unknown> | undefined) ?? {})
        .filter(([, value]) => secretIds.some((id) => JSON.stringify(value).includes(`"${id}"`)))
        .map(([name]) => name),
    ),
  ];
  const functions = ofType('AWS::Lambda::Function');
  const retentionOf = new Map(
    ofType('AWS::Logs::LogGroup').map(([id, group]) => [
      id,
      Number(group.Properties?.RetentionInDays ?? Number.POSITIVE_INFINITY),
    ]),
  );
  // A function's log group: the one its LoggingConfig names (the stack gives each function its own).
  const functionRetentions = functions.flatMap(([, fn]) => {
    const logGroup = JSON.stringify(fn.Properties?.LoggingConfig ?? {});
    return [...retentionOf.entries()].filter(([id]) => logGroup.includes(id)).map(([, days]) => days);
  });
  const accessLogGroup = JSON.stringify(
    ofType('AWS::ApiGatewayV2::Stage').map(([, stage]) => stage.Properties?.AccessLogSettings ?? {}),
  );
  const accessRetentions = [...retentionOf.entries()]
    .filter(([id]) => accessLogGroup.includes(`"${id}"`))
    .map(([, days]) => days);
  return {
    source: `${files.length} synthesized template(s) in ${path.relative(REPO_ROOT, templateDir) || templateDir}`,
    fromTemplate: true,
    secrets: secretIds.length,
    kmsKeys: ofType('AWS::KMS::Key').length,
    alarms: ofType('AWS::CloudWatch::Alarm').length,
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    customMetrics,
    stateMachines: ofType('AWS::StepFunctions::StateMachine').length,
    functions: functions.length,
    secretReadingFunctions: functions.filter(([, fn]) => {
      const variables = JSON.stringify(
        (fn.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables ?? {},
      );
      return secretNames.some((name) => variables.includes(`"${name}"`));
    }).length,
    logRetentionDays: mostCommon(functionRetentions, DOCUMENTED_FIXED_RESOURCES.logRetentionDays),
    accessLogRetentionDays: Math.max(0, ...accessRetentions),
    pointInTimeRecovery: ofType('AWS::DynamoDB::Table').some(
      ([, table]) =>
        (table.Properties?.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean })
          ?.PointInTimeRecoveryEnabled === true,
    ),
    xraySamplingRules: ofType('AWS::XRay::SamplingRule').length,
    cloudFrontDistributions: ofType('AWS::CloudFront::Distribution').length,
    // Ours, those that run for tenants (CDK's own deploy-time functions, the bucket deployment's,
    // run once a deploy): the ones with our service name.
    lambdaSystemLines: functions
      .filter(([, fn]) =>
        JSON.stringify(fn.Properties?.Environment ?? {}).includes('"POWERTOOLS_SERVICE_NAME"'),
      )
      .some(
        ([, fn]) =>
          (fn.Properties?.LoggingConfig as { SystemLogLevel?: string } | undefined)?.SystemLogLevel !==
          'WARN',
      ),
  };
};

/** Each warm instance of a secret-reading function reads its secret every 5 minutes (functions/ports/secrets.ts). */
export const SECRET_READS_PER_FUNCTION_MONTH = 12 * 24 * DAYS_PER_MONTH;

/** The monthly bill of `fleet.tenants` tenants that each use `usage` a day, on top of the fixed resources. */
export const monthlyBill = (usage: TenantDayUsage, fleet: FleetShape, fixed: FixedResources): Bill => {
  const tenantDays = fleet.tenants * DAYS_PER_MONTH;
  const month = (perDay: number) => perDay * tenantDays;
  const lines: BillLine[] = [];
  const line = (service: string, item: string, unit: string, unitPrice: number, count: number) =>
    lines.push({ service, item, unit, unitPrice, count, monthlyUsd: unitPrice * count });

  const logGbPerDay = (usage.logBytes * fleet.tenants) / GB;
  const accessGbPerDay = ((usage.accessLogBytes ?? 0) * fleet.tenants) / GB;
  // Steady state: each day's logs are kept for the retention, so that many days' worth is stored.
  const storedLogGb =
    (logGbPerDay - accessGbPerDay) * fixed.logRetentionDays + accessGbPerDay * fixed.accessLogRetentionDays;
  const tableGb = (fleet.dynamoBytesPerTenant * fleet.tenants) / GB;

  line(
    'API Gateway',
    'HTTP API requests',
    '1M requests',
    PRICES.httpApiPerMillionRequests,
    month(usage.apiRequests) / 1e6,
  );
  line(
    'API Gateway',
    'data out to the internet (Dispatcher, webhooks)',
    'GB',
    PRICES.dataTransferOutPerGb,
    month(usage.apiBytesOut ?? 0) / GB,
  );
  line(
    'Lambda',
    'requests',
    '1M requests',
    PRICES.lambdaPerMillionRequests,
    month(usage.lambdaInvocations) / 1e6,
  );
  line('Lambda', 'duration (arm64)', 'GB-second', PRICES.lambdaPerGbSecondArm, month(usage.lambdaGbSeconds));
  line(
    'DynamoDB',
    'reads (on-demand)',
    '1M RRU',
    PRICES.dynamoPerMillionReadUnits,
    month(usage.dynamoReadUnits) / 1e6,
  );
  line(
    'DynamoDB',
    'writes (on-demand)',
    '1M WRU',
    PRICES.dynamoPerMillionWriteUnits,
    month(usage.dynamoWriteUnits) / 1e6,
  );
  line('DynamoDB', 'storage (items + GSIs)', 'GB-month', PRICES.dynamoStoragePerGbMonth, tableGb);
  line(
    'DynamoDB',
    `point-in-time recovery (${fixed.pointInTimeRecovery ? 'on' : 'off'})`,
    'GB-month',
    PRICES.dynamoPitrPerGbMonth,
    fixed.pointInTimeRecovery ? tableGb : 0,
  );
  line('SQS', 'requests', '1M requests', PRICES.sqsPerMillionRequests, month(usage.sqsRequests) / 1e6);
  line('SES', 'emails', '1,000 emails', PRICES.sesPerThousandEmails, month(usage.emails) / 1000);
  line(
    'Step Functions',
    `standard transitions (${fixed.stateMachines} state machine(s))`,
    '1,000 transitions',
    PRICES.stepFunctionsPerThousandTransitions,
    month(usage.stepFunctionTransitions) / 1000,
  );
  line('KMS', 'requests', '10,000 requests', PRICES.kmsPer10kRequests, month(usage.kmsRequests) / 10_000);
  line('KMS', 'customer managed keys', 'key-month', PRICES.kmsKeyPerMonth, fixed.kmsKeys);
  line('Secrets Manager', 'secrets', 'secret-month', PRICES.secretPerMonth, fixed.secrets);
  line(
    'Secrets Manager',
    `API calls (${fixed.secretReadingFunctions} functions re-read every 5 min, one warm instance each)`,
    '10,000 calls',
    PRICES.secretsManagerPer10kCalls,
    (month(usage.secretsManagerCalls) + fixed.secretReadingFunctions * SECRET_READS_PER_FUNCTION_MONTH) /
      10_000,
  );
  line('CloudWatch Logs', 'ingestion', 'GB', PRICES.logsIngestionPerGb, logGbPerDay * DAYS_PER_MONTH);
  line(
    'CloudWatch Logs',
    `storage (functions ${fixed.logRetentionDays} d, access logs ${fixed.accessLogRetentionDays} d retention)`,
    'GB-month',
    PRICES.logsStoragePerGbMonth,
    storedLogGb,
  );
  line(
    'CloudWatch',
    'custom metrics (EMF)',
    'metric-month',
    PRICES.customMetricPerMonth,
    fixed.customMetrics,
  );
  line('CloudWatch', 'alarms', 'alarm-month', PRICES.alarmPerMonth, fixed.alarms);
  line('CloudWatch', 'dashboards', 'dashboard-month', PRICES.dashboardPerMonth, fixed.dashboards);
  line(
    'X-Ray',
    `traces recorded (${fixed.xraySamplingRules === 0 ? 'default rule: 1/s per function + 5%' : `${fixed.xraySamplingRules} custom rule(s)`})`,
    '1M traces',
    PRICES.xrayPerMillionTracesRecorded,
    month(usage.xrayTracesRecorded) / 1e6,
  );
  line(
    'CloudFront',
    'HTTPS requests (Europe)',
    '10,000 requests',
    PRICES.cloudFrontPer10kHttpsRequests,
    month(usage.cloudFrontRequests) / 10_000,
  );
  line(
    'CloudFront',
    'data out (Europe)',
    'GB',
    PRICES.cloudFrontPerGbOut,
    month(usage.cloudFrontBytesOut) / GB,
  );
  line(
    'S3',
    'Standard storage',
    'GB-month',
    PRICES.s3StandardPerGbMonth,
    (fleet.s3BytesPerTenant * fleet.tenants) / GB,
  );
  line('S3', 'requests', '1,000 requests', PRICES.s3PerThousandRequests, month(usage.s3Requests) / 1000);

  const totalUsd = lines.reduce((sum, entry) => sum + entry.monthlyUsd, 0);
  return {
    tenants: fleet.tenants,
    lines,
    totalUsd,
    perThousandTenantsUsd: fleet.tenants > 0 ? totalUsd / (fleet.tenants / 1000) : 0,
  };
};

const countText = (count: number) =>
  count >= 100 ? Math.round(count).toLocaleString('en') : count.toPrecision(3).replace(/\.?0+$/, '');
const priceText = (price: number) =>
  `$${price < 0.01 ? price.toPrecision(3) : price.toFixed(price < 1 ? 4 : 2)}`;

/** One line per bill line (service, item, unit price, count, $ a month), then the total and the per-1,000 figure. */
export const printBill = (bill: Bill, log: (line: string) => void = console.log): void => {
  log(
    `Monthly AWS bill for ${bill.tenants.toLocaleString('en')} tenants (${PRICES.region} on-demand list prices as of ${PRICES.asOf}, ${DAYS_PER_MONTH}-day month, free tiers left out)`,
  );
  log(
    `  ${'service'.padEnd(16)} ${'item'.padEnd(72)} ${'unit price'.padStart(24)} ${'count'.padStart(14)} ${'$/month'.padStart(11)}`,
  );
  for (const entry of bill.lines)
    log(
      `  ${entry.service.padEnd(16)} ${entry.item.padEnd(72)} ${`${priceText(entry.unitPrice)} / ${entry.unit}`.padStart(24)} ${countText(entry.count).padStart(14)} ${entry.monthlyUsd.toFixed(2).padStart(11)}`,
    );
  log(
    `  ${'total'.padEnd(16)} ${''.padEnd(72)} ${''.padStart(24)} ${''.padStart(14)} ${bill.totalUsd.toFixed(2).padStart(11)}`,
  );
  log(`  per 1,000 tenants: $${bill.perThousandTenantsUsd.toFixed(2)} a month`);
};
