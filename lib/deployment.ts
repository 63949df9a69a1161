import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './constants.ts';

/**
 * What a deployed stage and the tools that work on it (lib/ops: the ops CLI and the smoke test)
 * agree on, without loading the CDK (only lib/infra may): the stack's name, the outputs it
 * publishes, the four secrets, and a stage's initial capacity as its context writes it.
 */

/** The stack of a stage; also the prefix of every account-wide name the stack sets. */
export const stackNameOf = (stage: string) => `StackControlPlane-${stage}`;

/** The stage of a stack named by stackNameOf (the name itself for any other). */
export const stageOfStack = (stackName: string) => stackName.replace(/^StackControlPlane-/, '');

/** A stage's name goes into the stack's name and every account-wide name: short, lower case. */
export const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

/**
 * The stack's outputs: what every runbook command needs, read by `npm run ops -- ... --stage`
 * and `npm run smoke -- --stage` from CloudFormation (no operator copies a name).
 */
export const STACK_OUTPUTS = {
  apiUrl: 'ApiUrl',
  consoleUrl: 'ConsoleUrl',
  consoleDistributionDomain: 'ConsoleDistributionDomain',
  consoleDistributionId: 'ConsoleDistributionId',
  consoleBucket: 'ConsoleBucketName',
  tableName: 'TableName',
  processorEventsQueueUrl: 'ProcessorEventsQueueUrl',
  processorEventsDlqUrl: 'ProcessorEventsDeadLetterQueueUrl',
  planChangeStateMachineArn: 'PlanChangeStateMachineArn',
  exportsBucket: 'ExportsBucketName',
  credentialsKeyArn: 'CredentialsKeyArn',
  reconcilerFunctionName: 'ReconcilerFunctionName',
  alarmTopicArn: 'AlarmTopicArn',
  alarmNames: 'AlarmNames',
  mailFrom: 'MailFrom',
  codeHostClientSecretArn: 'CodeHostClientSecretArn',
  processorApiKeyArn: 'ProcessorApiKeyArn',
  processorWebhookSecretArn: 'ProcessorWebhookSecretArn',
  exportsSigningKeyArn: 'ExportsSigningKeyArn',
} as const;

export type StackOutput = keyof typeof STACK_OUTPUTS;

/**
 * The four secrets as an operator names them (`npm run ops -- secrets set <name>`): the output
 * that holds each one's ARN, and the variable the functions read it by (functions/ports/secrets.ts).
 */
export const STAGE_SECRETS = {
  'code-host-client-secret': { output: 'codeHostClientSecretArn', variable: 'CODE_HOST_CLIENT_SECRET' },
  'processor-api-key': { output: 'processorApiKeyArn', variable: 'PROCESSOR_API_KEY' },
  'processor-webhook-secret': { output: 'processorWebhookSecretArn', variable: 'PROCESSOR_WEBHOOK_SECRET' },
  'exports-signing-key': { output: 'exportsSigningKeyArn', variable: 'EXPORTS_SIGNING_KEY' },
} as const satisfies Record<
  string,
  {
    output: StackOutput;
    variable:
      | 'CODE_HOST_CLIENT_SECRET'
      | 'PROCESSOR_API_KEY'
      | 'PROCESSOR_WEBHOOK_SECRET'
      | 'EXPORTS_SIGNING_KEY';
  }
>;

export type StageSecret = keyof typeof STAGE_SECRETS;

export const isStageSecret = (name: unknown): name is StageSecret =>
  typeof name === 'string' && Object.hasOwn(STAGE_SECRETS, name);

/** The region every signup's tenant lives in (functions/store/tenants.ts, SIGNUP_HOME_REGION). */
export const HOME_REGION = 'eu';

const PLANS = ['standard', 'plus', 'pro'] as const;

/** One location's places per Plan, as the context `capacity` gives them. */
export interface InitialCapacity {
  location: string;
  plan: (typeof PLANS)[number];
  total: number;
}

/**
 * Reads the context `capacity`: the Home Region's places per location and Plan, one location per
 * `;`-separated part, `<location>: <plan>=<places> ...` (`eu-central-1a: standard=20 plus=10 pro=4;
 * eu-west-1a: standard=20`). Throws an Error that says what is wrong, in one line.
 */
export const parseCapacity = (text: string): InitialCapacity[] => {
  const slots: InitialCapacity[] = [];
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z0-9][a-z0-9-]{0,39})\s*:\s*(.+)$/.exec(part);
    if (!match?.[1] || !match[2])
      throw new Error(
        `"${part}" is not "<location>: <plan>=<places> ..." (e.g. "eu-central-1a: standard=20 plus=10")`,
      );
    const location = match[1];
    for (const pair of match[2].split(/[\s,]+/).filter(Boolean)) {
      const [plan, places] = pair.split('=');
      if (!PLANS.includes(plan as (typeof PLANS)[number]))
        throw new Error(`"${pair}" at ${location}: the Plan must be one of ${PLANS.join(', ')}`);
      const total = Number(places);
      if (!/^\d+$/.test(places ?? '') || !Number.isSafeInteger(total))
        throw new Error(`"${pair}" at ${location}: the places must be a whole number, 0 or more`);
      if (slots.some((slot) => slot.location === location && slot.plan === plan))
        throw new Error(`${location}/${plan} is given twice`);
      slots.push({ location, plan: plan as (typeof PLANS)[number], total });
    }
  }
  if (!slots.some((slot) => slot.total > 0)) throw new Error('it gives no place to any Plan');
  return slots;
};

/** A stage as cdk.json declares it: the values the ops CLI and the smoke test need before any AWS call. */
export interface DeclaredStage {
  stage: string;
  stackName: string;
  region: string;
  /** The context `capacity` of the stage, when it has one. */
  capacity?: string;
}

/** A stage name the tools cannot use: the message says why, in one line. */
export class UnknownStage extends Error {
  override readonly name = 'UnknownStage';
}

/** Reads a stage from cdk.json (its region and initial capacity); throws UnknownStage when it is not there. */
export const declaredStage = (
  stage: string,
  cdkJson: string = path.join(REPO_ROOT, 'cdk.json'),
): DeclaredStage => {
  if (!STAGE_NAME.test(stage))
    throw new UnknownStage(
      `"${stage}" is not a stage name (a letter, then letters, digits or "-", 20 at most).`,
    );
  const context =
    (JSON.parse(readFileSync(cdkJson, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
  const stages = (context.stages ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const own = stages[stage];
  if (!own)
    throw new UnknownStage(
      `Unknown stage "${stage}": cdk.json declares ${Object.keys(stages).sort().join(', ') || 'no stage'} (under "stages").`,
    );
  const value = (key: string): unknown => own[key] ?? context[key];
  const region = value('region');
  if (typeof region !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
    throw new UnknownStage(
      `Stage "${stage}" has no AWS region in cdk.json (set "region" under "stages"."${stage}").`,
    );
  const capacity = value('capacity');
  return {
    stage,
    stackName: stackNameOf(stage),
    region,
    ...(typeof capacity === 'string' ? { capacity } : {}),
  };
};
