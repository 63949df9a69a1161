import {
  Annotations,
  CfnDeletionPolicy,
  CfnOutput,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ContextSetting, Environment } from '../../functions/ports/config.ts';
import { STACK_OUTPUTS, STAGE_SECRETS, type StackOutput, type StageSecret } from '../deployment.ts';
import type { Route } from '../routes.ts';
import { OperatorAlarms } from './constructs/alarms.ts';
import { ControlPlaneApi, checkResourceBudget, DEFAULT_FLEET_STACKS } from './constructs/api.ts';
import { ConsoleSite } from './constructs/console.ts';
import { CredentialsKey } from './constructs/credentials-key.ts';
import { ExportArchives } from './constructs/exports.ts';
import { PlanChanges } from './constructs/plan-changes.ts';
import { Reconciler } from './constructs/reconciler.ts';
import { ControlPlaneTable } from './constructs/table.ts';
import { ProcessorEventQueue } from './constructs/webhooks.ts';
import { stageSecretProps } from './stateful.ts';

/**
 * Deployment settings, from CDK context (cdk.json, or `cdk deploy -c key=value`); the keys are declared
 * in functions/ports/config.ts (CDK_CONTEXT), with the variable each sets.
 */
export interface ControlPlaneSettings extends Partial<Record<ContextSetting, string>> {
  /** Stacks are addressed at `<slug>.<stackDomain>`. */
  stackDomain: string;
  /**
   * Optional: where the browser lands after sign-in; its origin is the only one accepted for
   * cookie-authenticated writes (default: the console's site, `https://<console domain>/`).
   */
  tenantAppUrl?: string;
  /** The code host's OAuth app (GitHub by default). */
  codeHostClientId: string;
  codeHostAuthorizeUrl: string;
  codeHostTokenUrl: string;
  codeHostApiUrl: string;
  /** Sender of the tenant emails; its domain must be a verified SES identity. */
  mailFrom: string;
  /** Optional: the SES account's maximum send rate (emails per second; 1, the sandbox's, by default). */
  sesMaxSendRate?: string;
  /** Where tenants write for a money-back refund (shown in the billing status). */
  supportEmail: string;
  /** Optional: subscribed by email to the operators' alarm topic. */
  alarmEmail?: string;
  /** Optional: the PEM public key that verifies export download URLs (a placeholder without it). */
  exportsSigningPublicKey?: string;
  /** Optional: the public key signed with before the last rotation, still trusted (docs/runbook.md). */
  exportsSigningPreviousPublicKey?: string;
  /** Optional: the console's own domain on its distribution, with its us-east-1 certificate. */
  consoleDomainName?: string;
  consoleCertificateArn?: string;
  /** Optional: the Plan Change release gates declared ready (none by default in a deploy). */
  planChangeGatesReady?: string;
  /** Optional: when Open Signup opens (ISO 8601); unset, every completed first subscription is founding. */
  openSignupAt?: string;
  /** Optional: today's list prices that differ from the catalog's (`plus=5500`). */
  planPrices?: string;
  /** Optional: the Home Region's initial places per location and Plan (lib/deployment.ts, parseCapacity). */
  capacity?: string;
}

export interface ControlPlaneStackProps extends StackProps {
  /** The stage (lib/infra/settings.ts): it prefixes every account-wide name the stack sets. */
  stage: string;
  /** The stage's checked context settings (lib/infra/settings.ts). */
  settings: Partial<Record<ContextSetting, string>>;
  /** The route table (default lib/routes.ts; test/infra/room-to-grow.test.ts adds routes). */
  routes?: readonly Route[];
}

const required = (settings: ControlPlaneStackProps['settings'], key: ContextSetting): string => {
  const value = settings[key];
  // readDeploymentSettings checked it; a direct construction without it is a programming error.
  if (value === undefined) throw new Error(`setting "${key}" is required`);
  return value;
};

/** The stack's outputs other than the secrets' ARNs, and what each one is. */
const OUTPUT_DESCRIPTIONS = {
  tableName: 'The single table (ops: --stage reads it)',
  processorEventsQueueUrl: 'The processor event intake queue',
  processorEventsDlqUrl: 'Its dead-letter queue (npm run ops -- queue status)',
  planChangeStateMachineArn: 'The Plan Change workflow',
  exportsBucket: "The export archives' bucket (retained when the stack is deleted)",
  consoleBucket: "The console's files (retained when the stack is deleted)",
  consoleDistributionId: "The console's CloudFront distribution",
  credentialsKeyArn: 'The Credentials key (retained when the stack is deleted)',
  reconcilerFunctionName: 'The reconciler sweep',
  alarmTopicArn: "The operators' alarm topic",
  alarmNames: "The operators' alarms (npm run smoke reads their states)",
  mailFrom: 'The sender of tenant emails: its domain must be a verified SES identity',
} as const satisfies Partial<Record<StackOutput, string>>;
type DescribedOutput = keyof typeof OUTPUT_DESCRIPTIONS;

/**
 * The control plane: this stack holds the shared parts (table, secrets, queues, site, reconciler,
 * Plan Change workflow, the HTTP API and its authorizer, alarms); each feature area's routes are a
 * nested stack of the API (lib/infra/constructs/api.ts).
 */
export class ControlPlaneStack extends Stack {
  readonly table: ControlPlaneTable;
  readonly api: ControlPlaneApi;
  readonly processorEvents: ProcessorEventQueue;
  readonly reconciler: Reconciler;
  readonly planChanges: PlanChanges;
  readonly credentialsKey: CredentialsKey;
  readonly site: ConsoleSite;
  readonly exports: ExportArchives;
  readonly alarms: OperatorAlarms;

  readonly stage: string;

  constructor(scope: Construct, id: string, props: ControlPlaneStackProps) {
    const { stage, settings: context, routes: routeTable, ...stackProps } = props;
    super(scope, id, { ...stackProps, stackName: id });
    this.stage = stage;
    const settings = {
      stackDomain: required(context, 'stackDomain'),
      tenantAppUrl: context.tenantAppUrl,
      codeHostClientId: required(context, 'codeHostClientId'),
      codeHostAuthorizeUrl: required(context, 'codeHostAuthorizeUrl'),
      codeHostTokenUrl: required(context, 'codeHostTokenUrl'),
      codeHostApiUrl: required(context, 'codeHostApiUrl'),
      mailFrom: required(context, 'mailFrom'),
      sesMaxSendRate: context.sesMaxSendRate,
      supportEmail: required(context, 'supportEmail'),
      alarmEmail: context.alarmEmail,
      exportsSigningPublicKey: context.exportsSigningPublicKey,
      exportsSigningPreviousPublicKey: context.exportsSigningPreviousPublicKey,
      consoleDomainName: context.consoleDomainName,
      consoleCertificateArn: context.consoleCertificateArn,
      planChangeGatesReady: context.planChangeGatesReady,
      openSignupAt: context.openSignupAt,
      planPrices: context.planPrices,
      fleetStacks: context.fleetStacks,
      capacity: context.capacity,
    } satisfies Record<ContextSetting, string | undefined> satisfies ControlPlaneSettings;

    this.table = new ControlPlaneTable(this, 'Data');
    // The console's site first: the functions' environment names it (where sign-in lands, the
    // OAuth callback's base); the API is routed onto it once it exists.
    this.site = new ConsoleSite(this, 'Console', {
      consoleDomainName: settings.consoleDomainName,
      consoleCertificateArn: settings.consoleCertificateArn,
    });
    if (settings.tenantAppUrl)
      Annotations.of(this).addInfo(
        `tenantAppUrl is set (${settings.tenantAppUrl}): sign-in lands there and only its origin may write with the session cookie; unset it to use the console's site (docs/runbook.md).`,
      );
    const externalSecret = (id: string, what: string, issuer: string) => {
      const secret = new Secret(this, id, stageSecretProps(this, id, what));
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: `This secret is issued by ${issuer}; it is rotated there and pasted here, so no Lambda rotation applies.`,
      });
      return secret;
    };
    const secrets = {
      codeHostClientSecret: externalSecret(
        'CodeHostClientSecret',
        'Client secret of the code-host OAuth app',
        'the code host',
      ),
      processorApiKey: externalSecret(
        'ProcessorApiKey',
        "The payment processor's secret API key",
        'the payment processor',
      ),
      processorWebhookSecret: externalSecret(
        'ProcessorWebhookSecret',
        "The payment processor's signing secret (whsec_...) of our webhook endpoint",
        'the payment processor',
      ),
    };
    this.processorEvents = new ProcessorEventQueue(this, 'ProcessorEvents');
    const environment: Environment = {
      TABLE_NAME: this.table.table.tableName,
      STACK_DOMAIN: settings.stackDomain,
      TENANT_APP_URL: settings.tenantAppUrl ?? `${this.site.url}/`,
      // The OAuth callback comes through the site, so the session cookie it sets is first-party.
      PUBLIC_API_URL: this.site.url,
      CODE_HOST_CLIENT_ID: settings.codeHostClientId,
      CODE_HOST_AUTHORIZE_URL: settings.codeHostAuthorizeUrl,
      CODE_HOST_TOKEN_URL: settings.codeHostTokenUrl,
      CODE_HOST_API_URL: settings.codeHostApiUrl,
      SUPPORT_EMAIL: settings.supportEmail,
      ...(settings.planChangeGatesReady ? { PLAN_CHANGE_GATES_READY: settings.planChangeGatesReady } : {}),
      ...(settings.openSignupAt ? { OPEN_SIGNUP_AT: settings.openSignupAt } : {}),
      ...(settings.planPrices ? { PLAN_PRICES: settings.planPrices } : {}),
    };
    this.reconciler = new Reconciler(this, 'Reconciler', {
      table: this.table.table,
      environment,
      events: this.processorEvents.queue,
      deadLetters: this.processorEvents.deadLetters,
      processorApiKey: secrets.processorApiKey,
      mailFrom: settings.mailFrom,
      ...(settings.sesMaxSendRate ? { sesMaxSendRate: settings.sesMaxSendRate } : {}),
    });
    this.planChanges = new PlanChanges(this, 'PlanChanges', {
      table: this.table.table,
      environment,
      processorApiKey: secrets.processorApiKey,
    });
    // The sweep starts the executions whose start a confirm saw refused (functions/plan-changes/start.ts).
    this.planChanges.grantStart(this.reconciler.function);
    this.reconciler.function.addEnvironment(
      'PLAN_CHANGE_STATE_MACHINE_ARN',
      this.planChanges.stateMachine.stateMachineArn,
    );
    this.credentialsKey = new CredentialsKey(this, 'CredentialsKey');
    this.exports = new ExportArchives(this, 'Exports', {
      site: this.site,
      signingPublicKey: settings.exportsSigningPublicKey,
      previousSigningPublicKey: settings.exportsSigningPreviousPublicKey,
    });
    this.api = new ControlPlaneApi(this, 'Api', {
      table: this.table.table,
      environment,
      // The download-signing key is the exports construct's own secret.
      secrets: { ...secrets, exportsSigningKey: this.exports.signingKey },
      queues: { processorEvents: this.processorEvents.queue },
      reconciler: this.reconciler.function,
      planChanges: this.planChanges,
      credentialsKey: this.credentialsKey,
      exports: this.exports,
      fleetStacks: Number(settings.fleetStacks ?? DEFAULT_FLEET_STACKS),
      ...(routeTable ? { routes: routeTable } : {}),
    });
    this.site.routeApi(this.api.api);
    this.alarms = new OperatorAlarms(this, 'Alarms', {
      reconciler: this.reconciler.function,
      deadLetters: this.processorEvents.deadLetters,
      api: this.api.api,
      ...(settings.alarmEmail ? { alarmEmail: settings.alarmEmail } : {}),
    });
    this.planChanges.addAlarms(this.alarms);
    if (settings.capacity === undefined)
      Annotations.of(this).addWarningV2(
        'stack-control-plane:no-initial-capacity',
        `Stage "${stage}" has no initial capacity (context "capacity"): every checkout answers no_capacity until places are set. Set "capacity" in cdk.json under "stages"."${stage}" and run \`npm run ops -- capacity seed --stage ${stage}\` after the deploy (README, "Deploy checklist").`,
      );
    // Every alarm of the stack (the Plan Change workflow adds its own), by name.
    const alarmNames = Fn.join(
      ',',
      this.node
        .findAll()
        .filter((construct): construct is Alarm => construct instanceof Alarm)
        .map((alarm) => alarm.alarmName),
    );
    const secretArns: Record<StageSecret, string> = {
      'code-host-client-secret': secrets.codeHostClientSecret.secretArn,
      'processor-api-key': secrets.processorApiKey.secretArn,
      'processor-webhook-secret': secrets.processorWebhookSecret.secretArn,
      'exports-signing-key': this.exports.signingKey.secretArn,
    };
    const values: Record<DescribedOutput, string> = {
      tableName: this.table.table.tableName,
      processorEventsQueueUrl: this.processorEvents.queue.queueUrl,
      processorEventsDlqUrl: this.processorEvents.deadLetters.queueUrl,
      planChangeStateMachineArn: this.planChanges.stateMachine.stateMachineArn,
      exportsBucket: this.exports.bucket.bucketName,
      consoleBucket: this.site.bucket.bucketName,
      consoleDistributionId: this.site.distribution.distributionId,
      credentialsKeyArn: this.credentialsKey.key.keyArn,
      reconcilerFunctionName: this.reconciler.function.functionName,
      alarmTopicArn: this.alarms.topic.topicArn,
      alarmNames,
      mailFrom: settings.mailFrom,
    };
    for (const [name, value] of Object.entries(values) as [DescribedOutput, string][])
      new CfnOutput(this, STACK_OUTPUTS[name], { value, description: OUTPUT_DESCRIPTIONS[name] });
    // The secrets' ARNs, each described by the command that sets it.
    for (const [name, { output }] of Object.entries(STAGE_SECRETS) as [
      StageSecret,
      { output: StackOutput },
    ][])
      new CfnOutput(this, STACK_OUTPUTS[output], {
        value: secretArns[name],
        description: `npm run ops -- secrets set ${name}`,
      });
    // No log group outlives its stage: CDK keeps the one of the console files' deployment
    // (a custom resource's function) by default, and a deleted stage, or each failed first deploy,
    // left it behind.
    for (const construct of this.node.findAll())
      if (
        construct instanceof CfnLogGroup &&
        construct.cfnOptions.deletionPolicy !== CfnDeletionPolicy.DELETE
      )
        construct.applyRemovalPolicy(RemovalPolicy.DESTROY);
    checkResourceBudget(
      this,
      'move a feature of this stack into a nested stack of its own, as the API routes are (docs/decisions.md, "Room to grow").',
    );
  }
}
