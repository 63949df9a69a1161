import path from 'node:path';
import { CfnElement, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  type IFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct, IConstruct } from 'constructs';
import { API_FUNCTION_TIMEOUT_SECONDS, DEFAULTS, type Environment } from '../../../functions/ports/config.ts';
import { REPO_ROOT } from '../../constants.ts';
import type { TableAccess } from '../../table-access.ts';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../bundling.ts';

/** Memory of every function that sets none (the API handlers, the authorizer); `npm run bench` bills it. */
export const DEFAULT_MEMORY_MB = 512;

export interface HandlerFunctionProps {
  /** Module exporting `handler`, relative to the repository root. */
  entry: string;
  environment?: Environment;
  timeout?: Duration;
  memorySize?: number;
  /** At most this many instances at once (none sets it: see Reconciler, whose sweeps take a lease). */
  reservedConcurrentExecutions?: number;
}

/** One Lambda function: nodejs24.x on arm64, an esbuild ESM bundle, minified with source maps. */
export const handlerFunction = (
  scope: Construct,
  id: string,
  props: HandlerFunctionProps,
): NodejsFunction => {
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const fn = new NodejsFunction(scope, id, {
    entry: path.join(REPO_ROOT, props.entry),
    handler: 'handler',
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
    // The API's functions (routes, authorizer): the time an Idempotency-Key claim is held for.
    timeout: props.timeout ?? Duration.seconds(API_FUNCTION_TIMEOUT_SECONDS),
    logGroup,
    // JSON logs; Lambda's own lines only from WARN: its START, END and REPORT lines for every
    // invocation were most of the log bill at scale (issue 23; the duration and errors they carry
    // are Lambda's metrics anyway). Failures, timeouts among them, are WARN and still logged. Our
    // lines are all passed on (TRACE): POWERTOOLS_LOG_LEVEL and the request-line sampling decide.
    loggingFormat: LoggingFormat.JSON,
    systemLogLevelV2: SystemLogLevel.WARN,
    applicationLogLevelV2: ApplicationLogLevel.TRACE,
    // X-Ray active tracing: every invocation is traced (the state machine traces its executions).
    tracing: Tracing.ACTIVE,
    ...(props.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    environment: {
      POWERTOOLS_SERVICE_NAME: DEFAULTS.POWERTOOLS_SERVICE_NAME,
      NODE_OPTIONS: DEFAULTS.NODE_OPTIONS,
      ...props.environment,
    } satisfies Environment,
    depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
    projectRoot: REPO_ROOT,
    bundling: {
      format: OutputFormat.ESM,
      target: NODE_TARGET,
      minify: true,
      sourceMap: true,
      mainFields: MAIN_FIELDS,
      externalModules: EXTERNAL_MODULES,
      banner: ESM_REQUIRE_BANNER,
    },
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'The AWS managed basic execution role only lets the function write its own CloudWatch logs.',
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      "Active tracing sends the function's trace segments to X-Ray, whose actions take no resource ARN.",
  });
  return fn;
};

/**
 * Grants a function exactly its declared table access (lib/table-access.ts): its actions on the
 * table's own ARN and `dynamodb:Query` on each index it names (no `index/*`, no action it does not
 * use: no Scan for a function that does not scan, no DeleteItem for one that deletes nothing).
 */
export const grantTable = (table: Table, fn: NodejsFunction, access: TableAccess): void => {
  if (access.actions.length > 0)
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: access.actions.map((action) => `dynamodb:${action}`),
        resources: [table.tableArn],
        ...(access.leadingKeys
          ? {
              conditions: {
                'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [...access.leadingKeys] },
              },
            }
          : {}),
      }),
    );
  if (access.indexes?.length)
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: access.indexes.map((index) => `${table.tableArn}/index/${index}`),
      }),
    );
};

/**
 * How cdk-nag names `token` (a resource's attribute, or an ARN built from some) in the template of
 * `consumer`'s stack: `<LogicalId.Attribute>` (`<LogicalId>` for a Ref) in the producer's own
 * stack, and in a nested stack the parameter CDK passes it through,
 * `<referenceto<producer's unique id><Attribute>>` (aws-cdk-lib, core/lib/private/refs).
 */
export const nagName = (consumer: IConstruct, producer: Stack, token: string): string => {
  const sameStack = Stack.of(consumer) === producer;
  const uniqueId = (logicalId: string): string => {
    const element = producer.node
      .findAll()
      .find(
        (child) =>
          CfnElement.isCfnElement(child) &&
          Stack.of(child) === producer &&
          producer.resolve(child.logicalId) === logicalId,
      );
    if (!element) throw new Error(`no resource ${logicalId} in ${producer.stackName}`);
    return Names.nodeUniqueId(element.node);
  };
  const parameter = (logicalId: string, attribute: string) =>
    `<${`referenceto${uniqueId(logicalId)}${attribute}`.replace(/[^A-Za-z0-9]/g, '')}>`;
  const name = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const part = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
    if (part.Ref)
      return part.Ref.startsWith('AWS::') || sameStack ? `<${part.Ref}>` : parameter(part.Ref, 'Ref');
    if (part['Fn::GetAtt']) {
      const [logicalId, attribute] = part['Fn::GetAtt'];
      return sameStack ? `<${logicalId}.${attribute}>` : parameter(logicalId, attribute);
    }
    if (part['Fn::Join']) return part['Fn::Join'][1].map(name).join(part['Fn::Join'][0]);
    throw new Error(`cannot name ${JSON.stringify(value)} as cdk-nag does`);
  };
  return name(producer.resolve(token));
};

/** Lets `caller` invoke `target`; Lambda's grant covers the target's versions (`:*`), acknowledged here. */
export const grantInvoke = (target: IFunction, caller: NodejsFunction): void => {
  target.grantInvoke(caller);
  Validations.of(caller).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${nagName(caller, Stack.of(target), target.functionArn)}:*]`,
    reason:
      'Invoking a function is granted on it and its versions (function:*); it reaches that one function only.',
  });
};
