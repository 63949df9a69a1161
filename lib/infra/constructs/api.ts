import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  HttpIamAuthorizer,
  HttpLambdaAuthorizer,
  HttpLambdaResponseType,
} from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
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
}

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

  constructor(scope: Construct, id: string, props: ControlPlaneApiProps) {
    super(scope, id);
    const authorizerFunction = handlerFunction(this, 'SessionAuthorizer', {
      entry: AUTHORIZER_HANDLER,
      environment: props.environment,
    });
    grantTable(props.table, authorizerFunction, AUTHORIZER_TABLE_ACCESS);
    const sessionAuthorizer = new HttpLambdaAuthorizer('SessionAuthorizer', authorizerFunction, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      // One identity source, which both clients send (the site passes the cookie on as
      // `Authorization: SessionCookie`): a request without it is refused by API Gateway without
      // running the authorizer; answers are cached per value for a short time (lib/infra/edge-session.ts).
      identitySource: [AUTHORIZER_IDENTITY_SOURCE],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_SECONDS),
    });
    // Operator routes: only requests signed by an IAM principal allowed execute-api:Invoke on them.
    const iamAuthorizer = new HttpIamAuthorizer();

    this.api = new HttpApi(this, 'HttpApi', { createDefaultStage: false });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.jsonWithStandardFields(),
      },
      throttle: { rateLimit: 200, burstLimit: 400 },
    });

    for (const route of routes) {
      const fn = this.routeFunction(route, props);
      // One integration of the function, one HTTP API route (and invoke permission) per path it
      // answers at: a path of `alsoAt` adds no function.
      const integration = new HttpLambdaIntegration(`${route.id}Integration`, fn);
      for (const { path } of servedPaths(route)) {
        const [apiRoute] = this.api.addRoutes({
          path,
          methods: [HttpMethod[route.method]],
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
          if (apiRoute)
            Validations.of(apiRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: route.publicBecause });
        }
      }
    }
    new CfnOutput(scope, 'ApiUrl', { value: this.api.apiEndpoint });
  }

  private routeFunction(route: Route, props: ControlPlaneApiProps): NodejsFunction {
    const fn = handlerFunction(this, route.id, { entry: route.handler, environment: props.environment });
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
      props.credentialsKey.grantSealOpen(fn);
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
