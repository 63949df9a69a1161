/**
 * Configuration in one place: every environment variable the control plane reads or sets (the CDK
 * stack for the Lambda functions, `npm start` locally, the CDK app at deploy time), each named
 * once here with its meaning and default, and the CDK context settings behind them.
 *
 * Functions read the environment only through this module; the CDK stack (lib/) and the local run
 * (lib/local/) type the environments they set as `Environment`, so a name that is not declared
 * here does not compile. No runtime imports (types only): every Lambda bundle includes this module.
 * README.md's Configuration table lists the same names (test/unit/configuration.test.ts).
 */
import type { CredentialKind, Effort, Provider } from '../core/credentials.ts';

export interface Variable {
  /** What it means. */
  readonly meaning: string;
  /** Who sets it, where. */
  readonly where: string;
  /** The value when unset (absent: required where it is read, or simply optional). */
  readonly default?: string;
  /** The value `npm start` gives it when unset. */
  readonly localDefault?: string;
}

// The defaults, as plain constants: the catalog below refers to them by name, so that esbuild
// drops the catalog (its descriptions) from a Lambda bundle that only reads DEFAULTS.
const DEFAULT_EXPORT_WINDOW_DAYS = '7';
const DEFAULT_STACK_CAP = '5';
const DEFAULT_SES_MAX_SEND_RATE = '1';
const DEFAULT_POWERTOOLS_LOG_LEVEL = 'INFO';
const DEFAULT_REQUEST_LOG_SAMPLE_RATE = '0.05';
const DEFAULT_POWERTOOLS_SERVICE_NAME = 'stack-control-plane';
const DEFAULT_NODE_OPTIONS = '--enable-source-maps';
/** SUPPORT_EMAIL outside Lambda when unset (npm start, tests, the ops CLI). */
const LOCAL_SUPPORT_EMAIL = 'support@stack-control-plane.test';

/** The value of each variable that has one when unset. */
export const DEFAULTS = {
  EXPORT_WINDOW_DAYS: DEFAULT_EXPORT_WINDOW_DAYS,
  STACK_CAP: DEFAULT_STACK_CAP,
  SES_MAX_SEND_RATE: DEFAULT_SES_MAX_SEND_RATE,
  POWERTOOLS_LOG_LEVEL: DEFAULT_POWERTOOLS_LOG_LEVEL,
  REQUEST_LOG_SAMPLE_RATE: DEFAULT_REQUEST_LOG_SAMPLE_RATE,
  POWERTOOLS_SERVICE_NAME: DEFAULT_POWERTOOLS_SERVICE_NAME,
  NODE_OPTIONS: DEFAULT_NODE_OPTIONS,
} as const;

/**
 * How long an API function (every route of lib/routes.ts, and the authorizer) may run: the Lambda
 * timeout lib/infra/constructs/lambda.ts gives every function that sets none. A request's
 * Idempotency-Key claim is held this long (functions/store/idempotency.ts): a request not finished
 * by then died with its function.
 */
export const API_FUNCTION_TIMEOUT_SECONDS = 10;

/**
 * The processor time one API request may use (its calls share it: functions/ports/processor/
 * deadline.ts), leaving the rest of API_FUNCTION_TIMEOUT_SECONDS to answer and write.
 */
export const PROCESSOR_REQUEST_BUDGET_MS = 7_500;

/** Where the local cloud's variables come from (`npm start` sets them). */
const LOCAL_CLOUD = 'local: the local cloud';

/**
 * A variable that points the AWS SDK at one of the local cloud's stand-ins. Marked free of side
 * effects so that a bundle that reads no description drops the catalog (see DEFAULTS).
 */
const localEndpoint = /* @__NO_SIDE_EFFECTS__ */ (standIn: string): Variable => ({
  where: LOCAL_CLOUD,
  meaning: `points the SDK at ${standIn}`,
});

/** The local cloud's credentials (the stand-ins accept any). */
const LOCAL_CLOUD_CREDENTIAL: Variable = { where: LOCAL_CLOUD, meaning: "the stand-ins' credentials" };

export const ENVIRONMENT = {
  TABLE_NAME: { where: 'Lambda (set by the stack); local: the local cloud', meaning: 'the single table' },
  STACK_DOMAIN: {
    where: 'Lambda (context `stackDomain`)',
    meaning: 'Stacks are `<slug>.<STACK_DOMAIN>`',
    localDefault: 'stacks.localhost',
  },
  TENANT_APP_URL: {
    where:
      "Lambda (context `tenantAppUrl`, default the console's site `https://<console domain>/`); local default the server's `/`",
    meaning:
      'where the browser lands after sign-in; its origin is the only one allowed for cookie-authenticated writes',
  },
  PUBLIC_API_URL: {
    where:
      "Lambda (set by the stack: the console's site `https://<console domain>`, which routes `/v1/*`); set by `npm start`",
    meaning: 'base of the OAuth callback URL (default `https://<API domain>`)',
  },
  PLAN_CHANGE_GATES_READY: {
    where: 'Lambda (context `planChangeGatesReady`; none by default); local: all five',
    meaning:
      'the Plan Change release gates that are ready, comma-separated: plan-catalog, processor-integration, replacement-path, reconciliation-loop, customer-contract; the Plan Change controls show only when all five are',
    localDefault: 'plan-catalog,processor-integration,replacement-path,reconciliation-loop,customer-contract',
  },
  OPEN_SIGNUP_AT: {
    where: 'optional, Lambda (context `openSignupAt`) and local',
    meaning:
      'when Open Signup opens (ISO 8601): a tenant whose first subscription completed before it keeps the Founding Price Lock; unset means Open Signup has not come yet, so every completed first subscription is founding',
  },
  PLAN_PRICES: {
    where: 'optional, Lambda (context `planPrices`) and local',
    meaning:
      "today's monthly list prices that differ from the catalog's, as plan=amount pairs in minor units (`plus=5500`); `processor:sync` creates the new price, which takes the lookup key over",
  },
  STACK_CAP: {
    where: 'optional, Lambda (add a Stack) and local',
    meaning: 'Stacks a tenant may have at once (torn-down ones do not count)',
    default: DEFAULT_STACK_CAP,
  },
  EXPORT_WINDOW_DAYS: {
    where: 'optional, Lambda (reconciler) and local',
    meaning: 'days a tenant that left (grace, refund or close) keeps to export before teardown',
    default: DEFAULT_EXPORT_WINDOW_DAYS,
  },
  CODE_HOST_CLIENT_ID: {
    where: "Lambda (context `codeHostClientId`); local: the stand-in's",
    meaning: "the OAuth app's client id",
  },
  CODE_HOST_AUTHORIZE_URL: {
    where: "Lambda (context `codeHostAuthorizeUrl`, GitHub's by default); local: the stand-in's",
    meaning: "the code host's authorization endpoint",
  },
  CODE_HOST_TOKEN_URL: {
    where: "Lambda (context `codeHostTokenUrl`, GitHub's by default); local: the stand-in's",
    meaning: "the code host's token endpoint",
  },
  CODE_HOST_API_URL: {
    where: "Lambda (context `codeHostApiUrl`, GitHub's by default); local: the stand-in's",
    meaning: "the code host's API",
  },
  CODE_HOST_CLIENT_SECRET_ARN: {
    where: "cloud: the stack's Secrets Manager secret",
    meaning: "the OAuth app's client secret",
  },
  CODE_HOST_CLIENT_SECRET: {
    where: "local: the stand-in's secret",
    meaning: "the OAuth app's client secret",
  },
  PROCESSOR_API_KEY_ARN: { where: "cloud: the stack's secret", meaning: "the processor's secret API key" },
  PROCESSOR_API_KEY: { where: "local: the emulator's test key", meaning: "the processor's secret API key" },
  PROCESSOR_WEBHOOK_SECRET_ARN: { where: "cloud: the stack's secret", meaning: 'the webhook signing secret' },
  PROCESSOR_WEBHOOK_SECRET: { where: "local: the emulator's", meaning: 'the webhook signing secret' },
  PROCESSOR_API_URL: { where: 'local only', meaning: 'points the Stripe SDK at the emulator' },
  PROCESSOR_RATE_LIMIT_PER_SECOND: {
    where: 'optional, Lambda and local',
    meaning:
      'processor calls per second this deployment allows itself (default from the API key: 25 in test mode, 100 live)',
  },
  PROCESSOR_EVENTS_QUEUE_URL: {
    where: "Lambda (set by the stack); local: the SQS stand-in's",
    meaning: 'the intake queue of verified processor events',
  },
  PROCESSOR_EVENTS_DLQ_URL: {
    where: "reconciler (set by the stack); local: the SQS stand-in's",
    meaning: "the dead-letter queue, for the operators' count",
  },
  RECONCILER_FUNCTION_NAME: { where: 'webhook intake (set by the stack)', meaning: 'the sweep it nudges' },
  PLAN_CHANGE_STATE_MACHINE_ARN: {
    where: "API: confirm and cancel a Plan Change (set by the stack); local: the Step Functions stand-in's",
    meaning: 'the Plan Change state machine (one execution per change, named after its id)',
  },
  CREDENTIALS_KEY_ID: {
    where: "API: routes that seal or open Credentials (set by the stack); local: the KMS stand-in's",
    meaning: 'the KMS key (ARN or alias) that envelope-encrypts the secret material of Credentials',
  },
  EXPORTS_BUCKET: {
    where: "API: the export routes (set by the stack); local: the S3 stand-in's",
    meaning: 'the private bucket that holds the export archives (its name never reaches a tenant)',
  },
  EXPORTS_DOWNLOAD_BASE_URL: {
    where:
      'API: the export download route (set by the stack: `https://<console domain>`); local: `<api>/_local`',
    meaning: 'base of the short-lived signed download URLs of export archives',
  },
  EXPORTS_SIGNING_KEY_PAIR_ID: {
    where:
      "API: the export download route (set by the stack: the CloudFront public key's id); local: `LOCAL`",
    meaning: 'the CloudFront public key id (`Key-Pair-Id`) a signed download URL names',
  },
  EXPORTS_SIGNING_KEY_ARN: {
    where: "cloud: the stack's secret",
    meaning: 'the RSA private key (PEM) that signs export download URLs',
  },
  EXPORTS_SIGNING_KEY: {
    where: 'local: generated by the local cloud',
    meaning: 'the RSA private key (PEM) that signs export download URLs',
  },
  MAIL_FROM: {
    where: 'reconciler (context `mailFrom`)',
    meaning: "sender of the tenant emails (a verified SES identity's domain)",
    localDefault: 'billing@stacks.localhost',
  },
  SES_MAX_SEND_RATE: {
    where: 'reconciler (context `sesMaxSendRate`) and local',
    meaning:
      "emails per second the outbox sends at most, side by side: the SES account's maximum send rate (1 in the SES sandbox; see the account's sending quota once production access is granted)",
    default: DEFAULT_SES_MAX_SEND_RATE,
    localDefault: '10',
  },
  SUPPORT_EMAIL: {
    where: 'API (context `supportEmail`); elsewhere (npm start, tests, the ops CLI) the local default',
    meaning:
      "where tenants write for a money-back refund (shown in `GET /v1/billing/status`, with the window's end)",
    localDefault: LOCAL_SUPPORT_EMAIL,
  },
  SWEEP_EVERY_SECONDS: {
    where: 'local',
    meaning: 'the ticker of `npm start` (`--sweep-every` wins)',
    localDefault: '60',
  },
  PORT: { where: 'local', meaning: 'API port of `npm start` (`--port` wins)', localDefault: '3000' },
  POWERTOOLS_LOG_LEVEL: {
    where: 'Lambda and local',
    meaning: 'log level of the structured JSON logs',
    default: DEFAULT_POWERTOOLS_LOG_LEVEL,
  },
  REQUEST_LOG_SAMPLE_RATE: {
    where: 'Lambda and local (`npm start`: 0, or 1 with `--verbose`)',
    meaning:
      'share (0 to 1) of routine request lines written; errors, refusals of money operations and state changes are always written',
    default: DEFAULT_REQUEST_LOG_SAMPLE_RATE,
  },
  POWERTOOLS_SERVICE_NAME: {
    where: 'Lambda (set by the stack)',
    meaning: 'the service name in every log line',
    default: DEFAULT_POWERTOOLS_SERVICE_NAME,
  },
  NODE_OPTIONS: {
    where: 'Lambda (set by the stack)',
    meaning: 'source-mapped stack traces',
    default: DEFAULT_NODE_OPTIONS,
  },
  AWS_LAMBDA_FUNCTION_NAME: {
    where: 'Lambda (set by its runtime)',
    meaning: 'present only in Lambda: metrics are flushed as EMF lines there',
  },
  AWS_REGION: { where: 'Lambda (its runtime); local: the local cloud', meaning: 'the AWS SDK region' },
  AWS_ACCESS_KEY_ID: LOCAL_CLOUD_CREDENTIAL,
  AWS_SECRET_ACCESS_KEY: LOCAL_CLOUD_CREDENTIAL,
  AWS_ENDPOINT_URL_DYNAMODB: localEndpoint('DynamoDB Local'),
  AWS_ENDPOINT_URL_SQS: localEndpoint('the SQS stand-in'),
  AWS_ENDPOINT_URL_SESV2: localEndpoint('the SES stand-in'),
  AWS_ENDPOINT_URL_SFN: localEndpoint('the Step Functions stand-in'),
  AWS_ENDPOINT_URL_KMS: localEndpoint('the KMS stand-in'),
  AWS_ENDPOINT_URL_S3: localEndpoint('the S3 stand-in (s3rver)'),
  CDK_DEFAULT_ACCOUNT: {
    where: 'deploy (set by the CDK CLI from the credentials)',
    meaning: "target account when the stage's context sets no `account`",
  },
} as const satisfies Record<string, Variable>;

export type EnvironmentName = keyof typeof ENVIRONMENT;
/** An environment a process is given (a function's, the local run's): declared names only. */
export type Environment = Partial<Record<EnvironmentName, string>>;

/** A secret: inline locally (`NAME`), or in the cloud the ARN of a Secrets Manager secret (`NAME_ARN`). */
export type SecretVariable =
  | 'CODE_HOST_CLIENT_SECRET'
  | 'PROCESSOR_API_KEY'
  | 'PROCESSOR_WEBHOOK_SECRET'
  | 'EXPORTS_SIGNING_KEY';
export type QueueVariable = 'PROCESSOR_EVENTS_QUEUE_URL' | 'PROCESSOR_EVENTS_DLQ_URL';

/** The CDK context settings (cdk.json, or `cdk deploy -c key=value`), and the variable each sets. */
/** The five release gates of the Plan Change controls (all must be ready for them to show). */
export const PLAN_CHANGE_GATES = [
  'plan-catalog',
  'processor-integration',
  'replacement-path',
  'reconciliation-loop',
  'customer-contract',
] as const;
export type PlanChangeGate = (typeof PLAN_CHANGE_GATES)[number];

export const CDK_CONTEXT = {
  stackDomain: { sets: 'STACK_DOMAIN', required: true },
  tenantAppUrl: {
    sets: 'TENANT_APP_URL',
    required: false,
    meaning:
      "optional: where sign-in lands and the only origin allowed for cookie-authenticated writes (default: the console's site)",
  },
  codeHostClientId: { sets: 'CODE_HOST_CLIENT_ID', required: true },
  codeHostAuthorizeUrl: { sets: 'CODE_HOST_AUTHORIZE_URL', required: true },
  codeHostTokenUrl: { sets: 'CODE_HOST_TOKEN_URL', required: true },
  codeHostApiUrl: { sets: 'CODE_HOST_API_URL', required: true },
  mailFrom: { sets: 'MAIL_FROM', required: true },
  sesMaxSendRate: {
    sets: 'SES_MAX_SEND_RATE',
    required: false,
    meaning:
      "optional: the SES account's maximum send rate, emails per second (default 1, the sandbox's); raise it after production access",
  },
  supportEmail: { sets: 'SUPPORT_EMAIL', required: true },
  openSignupAt: {
    sets: 'OPEN_SIGNUP_AT',
    required: false,
    meaning:
      'optional: when Open Signup opens (ISO 8601); the Founding Price Lock is for first subscriptions completed before it',
  },
  planPrices: {
    sets: 'PLAN_PRICES',
    required: false,
    meaning:
      "optional: today's list prices that differ from the catalog's (plan=amount in minor units, comma-separated)",
  },
  planChangeGatesReady: {
    sets: 'PLAN_CHANGE_GATES_READY',
    required: false,
    meaning: 'optional: the Plan Change release gates an operator has declared ready (comma-separated)',
  },
  exportsSigningPublicKey: {
    sets: undefined,
    required: false,
    meaning:
      'optional: the PEM public key of the export download-signing key pair (its private key goes into the ExportsSigningKey secret); without it a placeholder is trusted and downloads are refused',
  },
  exportsSigningPreviousPublicKey: {
    sets: undefined,
    required: false,
    meaning:
      'optional: the PEM public key signed with before the last rotation: still trusted by the distribution, never signed with (docs/runbook.md)',
  },
  consoleDomainName: {
    sets: undefined,
    required: false,
    meaning:
      "optional: the console's own domain on its CloudFront distribution (with `consoleCertificateArn`); the console's site, sign-in and download URLs use it, else the distribution's domain",
  },
  consoleCertificateArn: {
    sets: undefined,
    required: false,
    meaning: 'optional: the ACM certificate (us-east-1) of `consoleDomainName`',
  },
  alarmEmail: {
    sets: undefined,
    required: false,
    meaning: "optional: an email address subscribed to the operators' alarm topic",
  },
  capacity: {
    sets: undefined,
    required: false,
    meaning:
      "optional: the Home Region's places per location and Plan for a new stage (`eu-central-1a: standard=20 plus=10 pro=4; ...`); `npm run ops -- capacity seed --stage <stage>` writes them, and synth warns without it (every checkout would answer no_capacity)",
  },
  fleetStacks: {
    sets: undefined,
    required: false,
    meaning:
      'optional: the number of Stacks the deployment is sized for (default 100000); the Dispatcher routes are throttled from it (docs/scale.md)',
  },
} as const satisfies Record<
  string,
  { sets: EnvironmentName | undefined; required: boolean; meaning?: string }
>;

export type ContextSetting = keyof typeof CDK_CONTEXT;

/** The one read of the environment. */
export const env = (name: EnvironmentName): string | undefined => process.env[name];

/** A value that must be set: a missing one fails the request that needs it, loudly. */
const required = (name: EnvironmentName, problem = 'is not configured'): string => {
  const value = env(name);
  if (!value) throw new Error(`${name} ${problem}`);
  return value;
};

/**
 * Deployment configuration, read from the environment (set by the CDK stack in the cloud and by
 * `npm start` locally). Read lazily, so a missing value fails the request that needs it, loudly.
 */
export const config = {
  /** The single table. */
  tableName: () => required('TABLE_NAME', 'is not set'),
  /** Stacks are addressed at `<slug>.<stackDomain>`. */
  stackDomain: () => required('STACK_DOMAIN'),
  /** Where the browser lands after sign-in. */
  tenantAppUrl: () => required('TENANT_APP_URL'),
  /** The only Origin accepted on unsafe requests authenticated by the session cookie. */
  tenantAppOrigin: () => new URL(required('TENANT_APP_URL')).origin,
  /** The API's public base URL; when unset, derived from the request's domain (https). */
  publicApiUrl: () => env('PUBLIC_API_URL'),
  /** Days a tenant that left after a grace, a refund or a close keeps to export before teardown (default 7). */
  exportWindowDays: () => {
    const value = Number(env('EXPORT_WINDOW_DAYS') ?? DEFAULTS.EXPORT_WINDOW_DAYS);
    if (!Number.isFinite(value) || value < 0)
      throw new Error('EXPORT_WINDOW_DAYS must be a number of days >= 0');
    return value;
  },
  /** Which Plan Change release gates are ready (none unless configured). */
  planChangeGates: () => {
    const ready = new Set((env('PLAN_CHANGE_GATES_READY') ?? '').split(',').map((gate) => gate.trim()));
    return Object.fromEntries(PLAN_CHANGE_GATES.map((gate) => [gate, ready.has(gate)])) as Record<
      PlanChangeGate,
      boolean
    >;
  },
  /**
   * When Open Signup opens (ISO 8601), or undefined when it has not been set (Open Signup has not
   * come yet). A value that is not a time fails loudly.
   */
  openSignupAt: () => {
    const value = env('OPEN_SIGNUP_AT')?.trim();
    if (!value) return undefined;
    if (Number.isNaN(Date.parse(value))) throw new Error('OPEN_SIGNUP_AT must be an ISO 8601 time');
    return new Date(value).toISOString();
  },
  /** `PLAN_PRICES` as written (parsed, and checked, by functions/core/price-lock.ts). */
  planPrices: () => env('PLAN_PRICES'),
  /** Stacks a tenant may have at once (default 5). */
  stackCap: () => {
    const value = Number(env('STACK_CAP') ?? DEFAULTS.STACK_CAP);
    if (!Number.isInteger(value) || value < 1) throw new Error('STACK_CAP must be a whole number >= 1');
    return value;
  },
  codeHost: () => ({
    authorizeUrl: required('CODE_HOST_AUTHORIZE_URL'),
    tokenUrl: required('CODE_HOST_TOKEN_URL'),
    apiUrl: required('CODE_HOST_API_URL'),
    clientId: required('CODE_HOST_CLIENT_ID'),
  }),
  /** A secret given inline (locally), else the ARN of the Secrets Manager secret holding it (cloud). */
  secret: (name: SecretVariable) => ({ inline: env(name), arn: env(`${name}_ARN`) }),
  /** A queue's URL. */
  queueUrl: (name: QueueVariable) => required(name),
  /** The Stripe API's base URL, when not Stripe's own (the local emulator). */
  processorApiUrl: () => env('PROCESSOR_API_URL'),
  /** The configured processor calls per second, as written (parsed with the API key's default). */
  processorRateLimitPerSecond: () => env('PROCESSOR_RATE_LIMIT_PER_SECOND'),
  /** The share of routine request lines written (functions/core/request-log.ts). */
  requestLogSampleRate: () => env('REQUEST_LOG_SAMPLE_RATE') ?? DEFAULT_REQUEST_LOG_SAMPLE_RATE,
  /** The sender of the tenant emails. */
  mailFrom: () => required('MAIL_FROM'),
  /** Emails per second the outbox may send (the SES account's maximum send rate; default 1). */
  sesMaxSendRate: () => {
    const value = Number(env('SES_MAX_SEND_RATE') || DEFAULTS.SES_MAX_SEND_RATE);
    if (!Number.isInteger(value) || value < 1)
      throw new Error('SES_MAX_SEND_RATE must be a whole number of emails per second >= 1');
    return value;
  },
  /**
   * Where tenants write for a money-back refund: required in Lambda (context `supportEmail`);
   * outside Lambda (npm start, tests, the ops CLI) the local default when unset.
   */
  supportEmail: () =>
    env('SUPPORT_EMAIL') ||
    (env('AWS_LAMBDA_FUNCTION_NAME') ? required('SUPPORT_EMAIL') : LOCAL_SUPPORT_EMAIL),
  /** The Plan Change state machine's ARN. */
  planChangeStateMachineArn: () => required('PLAN_CHANGE_STATE_MACHINE_ARN'),
  /** The Step Functions endpoint when it is not AWS's own (the local stand-in). */
  stepFunctionsEndpoint: () => env('AWS_ENDPOINT_URL_SFN'),
  /** The KMS key that envelope-encrypts Credentials' secret material (ARN or alias). */
  credentialsKeyId: () => required('CREDENTIALS_KEY_ID'),
  /** The KMS endpoint when it is not AWS's own (the local stand-in). */
  kmsEndpoint: () => env('AWS_ENDPOINT_URL_KMS'),
  /** The private bucket of export archives. */
  exportsBucket: () => required('EXPORTS_BUCKET'),
  /** The S3 endpoint when it is not AWS's own (the local stand-in). */
  s3Endpoint: () => env('AWS_ENDPOINT_URL_S3'),
  /** Base of the signed download URLs (`https://<console domain>/exports`; locally the local route). */
  exportsDownloadBaseUrl: () => required('EXPORTS_DOWNLOAD_BASE_URL'),
  /** The CloudFront public key id a signed download URL names. */
  exportsSigningKeyPairId: () => required('EXPORTS_SIGNING_KEY_PAIR_ID'),
  /** The reconciler a sweep nudge invokes (unset: no nudge). */
  reconcilerFunctionName: () => env('RECONCILER_FUNCTION_NAME'),
  /** True inside a Lambda function (its runtime sets AWS_LAMBDA_FUNCTION_NAME); false for npm start and tests. */
  inLambda: () => Boolean(env('AWS_LAMBDA_FUNCTION_NAME')),
};

/**
 * The AI-runtime Provider catalog (docs/credentials.md): what each accepted Credential kind
 * injects into the runtime, and the model and effort a blank Runtime Profile falls back to.
 */
export const PROVIDER_CATALOG: Record<
  Provider,
  {
    name: string;
    defaults: { model: string; effort: Effort };
    inject: Partial<
      Record<CredentialKind, { env?: string; authFileField?: string; authFile?: true; ambient?: true }>
    >;
  }
> = {
  'provider-a': {
    name: 'Provider A',
    defaults: { model: 'a-large', effort: 'medium' },
    inject: {
      oauth_token: { env: 'PROVIDER_A_OAUTH_TOKEN' },
      api_key: { env: 'PROVIDER_A_API_KEY' },
      ambient: { ambient: true },
    },
  },
  'provider-b': {
    name: 'Provider B',
    defaults: { model: 'b-pro', effort: 'medium' },
    inject: {
      auth_file: { authFile: true },
      api_key: { authFileField: 'api_key' },
      ambient: { ambient: true },
    },
  },
  'provider-c': {
    name: 'Provider C (an aggregator)',
    defaults: { model: 'c-auto', effort: 'low' },
    inject: { api_key: { env: 'PROVIDER_C_API_KEY' } },
  },
};
