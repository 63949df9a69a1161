import {
  CfnOutput,
  CfnResource,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  AuthorizerPayloadVersion,
  type CfnStage,
  HttpApi,
  HttpAuthorizer,
  HttpAuthorizerType,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_ROUTE_RATE,
  dispatcherRouteThrottles,
  type RouteThrottle,
} from '../../../functions/core/dispatcher.ts';
import type {
  Environment,
  EnvironmentName,
  QueueVariable,
  SecretVariable,
} from '../../../functions/ports/config.ts';
import { AUTHORIZER_HANDLER, type Route, routes, type SecretName, servedPaths } from '../../routes.ts';
import { AUTHORIZER_TABLE_ACCESS } from '../../table-access.ts';
import { AUTHORIZER_CACHE_SECONDS, AUTHORIZER_IDENTITY_SOURCE } from '../edge-session.ts';
import type { CredentialsKey } from './credentials-key.ts';
import type { ExportArchives } from './exports.ts';
import { grantInvoke, grantTable, handlerFunction } from './lambda.ts';
import type { PlanChanges } from './plan-changes.ts';

export interface ControlPlaneApiProps {
  table: Table;
  environment: Environment;
  secrets: Record<SecretName, ISecret>;
  queues: Record<NonNullable<Route['sendsTo']>[number], IQueue>;
  /** Intake nudges the sweep: functions that send to the event queue may invoke it asynchronously. */
  reconciler: IFunction;
  /** The Plan Change workflow, which the routes of PLAN_CHANGE_WORKFLOW_ROUTES start and stop. */
  planChanges: PlanChanges;
  /** The key that envelope-encrypts Credentials, which the routes with `usesCredentialsKey` use. */
  credentialsKey: CredentialsKey;
  /** The export archives' bucket and download distribution (routes with `exportsBucket`, `signsExportDownloads`). */
  exports: ExportArchives;
  /** The Stacks the deployment is sized for: the Dispatcher routes' throttles follow from it. */
  fleetStacks: number;
  /** The route table (default lib/routes.ts; the room-to-grow test adds routes). */
  routes?: readonly Route[];
}

/**
 * One JSON line per request in the API's access log, from the variables HTTP APIs define (not
 * REST APIs' format: its `$context.resourcePath` does not exist here). No identity beyond the
 * source address: the session is a cookie the log never holds.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
} as const;

/** A deployment sized for this many Stacks unless context `fleetStacks` says otherwise. */
export const DEFAULT_FLEET_STACKS = 100_000;

/** The Dispatcher's polling routes (lib/routes.ts), throttled from the fleet's size. */
const DISPATCHER_DESIRED_STATE_PATH = '/v1/dispatcher/desired-state';
const DISPATCHER_OBSERVED_STATE_PATH = '/v1/dispatcher/observed-state';

const pascal = (segment: string): string =>
  segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');

/**
 * A route's feature area: the first segment of its path after `/v1` (`/v1/billing/...`: Billing),
 * or its first segment outside `/v1` (`/ops/...`: Ops). Stable as long as the path is, so a route
 * never moves between nested stacks (a move would create its API route in the new stack before
 * deleting it from the old one: a conflict).
 */
export const routeArea = (route: Route): string => {
  if (route.area) return pascal(route.area);
  const [first, second] = route.path.split('/').filter(Boolean);
  return pascal((first === 'v1' ? second : first) ?? 'root');
};

/**
 * At most this many resources in any one stack of ours: CloudFormation allows 500; the rest is
 * room for what a change adds before anyone splits an area. The synth fails above it, naming the
 * stack (test/infra/room-to-grow.test.ts).
 */
export const STACK_RESOURCE_BUDGET = 450;

/** The CloudFormation resources a stack's own template will hold. */
export const resourcesIn = (stack: Stack): number =>
  stack.node.findAll().filter((child) => CfnResource.isCfnResource(child) && Stack.of(child) === stack)
    .length;

/** Fails the synth when `stack` holds more than STACK_RESOURCE_BUDGET resources, saying what to do. */
export const checkResourceBudget = (stack: Stack, remedy: string): void => {
  stack.node.addValidation({
    validate: () => {
      const count = resourcesIn(stack);
      return count > STACK_RESOURCE_BUDGET
        ? [
            `${stack.node.path} has ${count} resources, more than our budget of ${STACK_RESOURCE_BUDGET} (CloudFormation allows 500): ${remedy}`,
          ]
        : [];
    },
  });
};

/** The routes of each area, in the route table's order. */
export const routeAreas = (table: readonly Route[]): Map<string, Route[]> => {
  const areas = new Map<string, Route[]>();
  for (const route of table) areas.set(routeArea(route), [...(areas.get(routeArea(route)) ?? []), route]);
  return areas;
};

/** The variable through which a function finds each secret's ARN. */
const SECRET_ENVIRONMENT: Record<SecretName, `${SecretVariable}_ARN`> = {
  codeHostClientSecret: 'CODE_HOST_CLIENT_SECRET_ARN',
  processorApiKey: 'PROCESSOR_API_KEY_ARN',
  processorWebhookSecret: 'PROCESSOR_WEBHOOK_SECRET_ARN',
  exportsSigningKey: 'EXPORTS_SIGNING_KEY_ARN',
};

/** The variable through which a function finds each queue. */
const QUEUE_ENVIRONMENT = { processorEvents: 'PROCESSOR_EVENTS_QUEUE_URL' } as const satisfies Record<
  NonNullable<Route['sendsTo']>[number],
  QueueVariable
>;

/** The variable through which intake finds the sweep it nudges. */
const RECONCILER_ENVIRONMENT: EnvironmentName = 'RECONCILER_FUNCTION_NAME';

/** The variable through which a Plan Change route finds the state machine. */
const PLAN_CHANGE_ENVIRONMENT: EnvironmentName = 'PLAN_CHANGE_STATE_MACHINE_ARN';

/** The variable through which a Credentials route finds the key. */
const CREDENTIALS_KEY_ENVIRONMENT: EnvironmentName = 'CREDENTIALS_KEY_ID';

/** The variable through which an export upload route finds the bucket. */
const EXPORTS_BUCKET_ENVIRONMENT: EnvironmentName = 'EXPORTS_BUCKET';

/** The variables through which the download route builds and signs URLs. */
const EXPORTS_DOWNLOAD_ENVIRONMENT = {
  baseUrl: 'EXPORTS_DOWNLOAD_BASE_URL',
  keyPairId: 'EXPORTS_SIGNING_KEY_PAIR_ID',
} as const satisfies Record<string, EnvironmentName>;

/** The HTTP API: the session authorizer and one function per entry of lib/routes.ts. */
export class ControlPlaneApi extends Construct {
  readonly api: HttpApi;
  readonly routeFunctions = new Map<string, NodejsFunction>();
  /** The nested stack of each feature area (routeAreas). */
  readonly areaStacks = new Map<string, NestedStack>();

  constructor(scope: Construct, id: string, props: ControlPlaneApiProps) {
    super(scope, id);
    const authorizerFunction = handlerFunction(this, 'SessionAuthorizer', {
      entry: AUTHORIZER_HANDLER,
      environment: props.environment,
    });
    grantTable(props.table, authorizerFunction, AUTHORIZER_TABLE_ACCESS);
    // Operator routes: only requests signed by an IAM principal allowed execute-api:Invoke on them.
    const iamAuthorizer = new HttpIamAuthorizer();
    this.api = new HttpApi(this, 'HttpApi', { createDefaultStage: false });
    // The session authorizer, in this (the root) stack, shared by the routes of every area.
    const authorizer = new HttpAuthorizer(this, 'SessionAuthorizerOfApi', {
      httpApi: this.api,
      authorizerName: 'SessionAuthorizer',
      type: HttpAuthorizerType.LAMBDA,
      enableSimpleResponses: true,
      payloadFormatVersion: AuthorizerPayloadVersion.VERSION_2_0,
      authorizerUri: `arn:${Stack.of(this).partition}:apigateway:${Stack.of(this).region}:lambda:path/2015-03-31/functions/${authorizerFunction.functionArn}/invocations`,
      // One identity source, which both clients send (the site passes the cookie on as
      // `Authorization: SessionCookie`): a request without it is refused by API Gateway (401, its
      // own body) without running the authorizer. Answers, refusals too, are cached per value for
      // AUTHORIZER_CACHE_SECONDS (30 s): a sign-out or a role change is seen within that time.
      identitySource: [AUTHORIZER_IDENTITY_SOURCE],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
    });
    authorizerFunction.addPermission('InvokedByApiAuthorizer', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({
        service: 'execute-api',
        resource: this.api.apiId,
        resourceName: `authorizers/${authorizer.authorizerId}`,
      }),
    });
    const sessionAuthorizer: IHttpRouteAuthorizer = {
      bind: () => ({ authorizerId: authorizer.authorizerId, authorizationType: 'CUSTOM' }),
    };
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
      throttle: { rateLimit: DEFAULT_ROUTE_RATE, burstLimit: 2 * DEFAULT_ROUTE_RATE },
    });
    // The Dispatcher routes carry the whole fleet's polling: their throttles follow from its size
    // (functions/core/dispatcher.ts, dispatcherRouteThrottles), the other routes keep the default.
    const polling = dispatcherRouteThrottles(props.fleetStacks);
    // RouteSettings is a free-form map in CloudFormation: its keys are written as the template has them.
    const routeThrottle = ({ rateLimit, burstLimit }: RouteThrottle) => ({
      ThrottlingRateLimit: rateLimit,
      ThrottlingBurstLimit: burstLimit,
    });
    (stage.node.defaultChild as CfnStage).routeSettings = {
      [`GET ${DISPATCHER_DESIRED_STATE_PATH}`]: routeThrottle(polling.desiredState),
      [`PUT ${DISPATCHER_OBSERVED_STATE_PATH}`]: routeThrottle(polling.observedState),
    };

    // One nested stack per feature area (routeAreas): each route's function, role, log group,
    // integration, API routes and permissions live there, so the root stack does not grow with
    // the routes (CloudFormation's 500 resources per stack; docs/decisions.md, "Room to grow").
    for (const [area, areaRoutes] of routeAreas(props.routes ?? routes)) {
      const nested = new NestedStack(this, `Routes${area}`, {
        description: `Stack Control Plane: the ${area} routes of the API (lib/routes.ts)`,
      });
      this.areaStacks.set(area, nested);
      checkResourceBudget(
        nested,
        `give some of the ${area} routes that are not deployed yet an area of their own (\`area\` in lib/routes.ts).`,
      );
      // Construct id `Api`: the functions' logical ids read `Api<route id>...` as before the split.
      const group = new Construct(nested, 'Api');
      for (const route of areaRoutes) {
        const fn = this.routeFunction(group, route, props);
        // One integration of the function, one HTTP API route (and invoke permission) per path it
        // answers at: a path of `alsoAt` adds no function.
        const integration = new HttpLambdaIntegration(`${route.id}Integration`, fn);
        for (const { path, id } of servedPaths(route)) {
          const apiRoute = new HttpRoute(group, `${id}Route`, {
            httpApi: this.api,
            routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
            integration,
            authorizer:
              route.auth === 'none'
                ? new HttpNoneAuthorizer()
                : route.auth === 'iam'
                  ? iamAuthorizer
                  : sessionAuthorizer,
          });
          if (route.auth === 'none') {
            if (!route.publicBecause)
              throw new Error(`route ${route.id} is public but says not why (publicBecause)`);
            Validations.of(apiRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: route.publicBecause });
          }
        }
      }
    }
    // The stage's route settings name the Dispatcher's routes: CloudFormation refuses settings for
    // a route key the API does not have yet, so the stage waits for the stacks that create them.
    for (const route of props.routes ?? routes)
      if ([DISPATCHER_DESIRED_STATE_PATH, DISPATCHER_OBSERVED_STATE_PATH].includes(route.path)) {
        const holder = this.areaStacks.get(routeArea(route));
        if (holder) stage.node.addDependency(holder);
      }
    new CfnOutput(scope, 'ApiUrl', { value: this.api.apiEndpoint });
  }

  private routeFunction(scope: Construct, route: Route, props: ControlPlaneApiProps): NodejsFunction {
    const fn = handlerFunction(scope, route.id, { entry: route.handler, environment: props.environment });
    grantTable(props.table, fn, route.table);
    for (const name of route.secrets ?? []) {
      props.secrets[name].grantRead(fn);
      fn.addEnvironment(SECRET_ENVIRONMENT[name], props.secrets[name].secretArn);
    }
    for (const name of route.sendsTo ?? []) {
      props.queues[name].grantSendMessages(fn);
      fn.addEnvironment(QUEUE_ENVIRONMENT[name], props.queues[name].queueUrl);
      grantInvoke(props.reconciler, fn);
      fn.addEnvironment(RECONCILER_ENVIRONMENT, props.reconciler.functionName);
    }
    if (route.startsPlanChanges) {
      props.planChanges.grantStartStop(fn);
      fn.addEnvironment(PLAN_CHANGE_ENVIRONMENT, props.planChanges.stateMachine.stateMachineArn);
    }
    if (route.usesCredentialsKey) {
      props.credentialsKey.grantUse(fn, route.usesCredentialsKey);
      fn.addEnvironment(CREDENTIALS_KEY_ENVIRONMENT, props.credentialsKey.key.keyArn);
    }
    if (route.exportsBucket === 'upload') {
      props.exports.grantUpload(fn);
      fn.addEnvironment(EXPORTS_BUCKET_ENVIRONMENT, props.exports.bucket.bucketName);
    }
    if (route.signsExportDownloads) {
      fn.addEnvironment(EXPORTS_DOWNLOAD_ENVIRONMENT.baseUrl, props.exports.downloadBaseUrl);
      fn.addEnvironment(EXPORTS_DOWNLOAD_ENVIRONMENT.keyPairId, props.exports.publicKey.publicKeyId);
    }
    this.routeFunctions.set(route.id, fn);
    return fn;
  }
}
