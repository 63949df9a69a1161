import { secretPlaceholderProblem } from '../../functions/core/secret-shape.ts';
import {
  type DeclaredStage,
  declaredStage,
  STACK_OUTPUTS,
  STAGE_SECRETS,
  type StackOutput,
  type StageSecret,
} from '../deployment.ts';
import type { StageCloud } from './cloud.ts';

/**
 * A deployed stage as the ops CLI and the smoke test find it: cdk.json names its region, and
 * CloudFormation its outputs (lib/deployment.ts, STACK_OUTPUTS). No operator copies a name.
 */

/** A stage the command cannot work on: one line saying why; nothing was written. */
export class StageProblem extends Error {
  override readonly name = 'StageProblem';
}

export interface DeployedStage extends DeclaredStage {
  stackId: string;
  outputs: Record<StackOutput, string>;
}

/** Finds `stage`'s stack and reads its outputs; throws StageProblem (or NoCredentials) in one line. */
export const deployedStage = async (
  stage: string,
  cloudOf: (region: string) => StageCloud,
  cdkJson?: string,
): Promise<{ stage: DeployedStage; cloud: StageCloud }> => {
  let declared: DeclaredStage;
  try {
    declared = declaredStage(stage, cdkJson);
  } catch (error) {
    throw new StageProblem((error as Error).message);
  }
  const cloud = cloudOf(declared.region);
  const stack = await cloud.stack(declared.stackName);
  if (!stack || stack.status === 'DELETE_COMPLETE')
    throw new StageProblem(
      `Stage "${stage}" was never deployed: region ${declared.region} has no stack ${declared.stackName} (npm run deploy -- -c stage=${stage}; or check the credentials' account).`,
    );
  if (/^(CREATE_FAILED|ROLLBACK_COMPLETE|ROLLBACK_FAILED|ROLLBACK_IN_PROGRESS|DELETE_)/.test(stack.status))
    throw new StageProblem(
      `Stage "${stage}"'s stack ${declared.stackName} is ${stack.status}: its first deploy failed. Delete the stack (npx cdk destroy -c stage=${stage}), check \`npm run ops -- leftovers --stage ${stage}\`, and deploy again.`,
    );
  const missing = Object.entries(STACK_OUTPUTS)
    .filter(([, name]) => stack.outputs[name] === undefined)
    .map(([, name]) => name);
  if (missing.length > 0)
    throw new StageProblem(
      `Stage "${stage}"'s stack ${declared.stackName} has no output ${missing.join(', ')}: it was deployed from an older version; deploy this one (npm run deploy -- -c stage=${stage}).`,
    );
  const outputs = Object.fromEntries(
    Object.entries(STACK_OUTPUTS).map(([key, name]) => [key, stack.outputs[name] ?? '']),
  ) as Record<StackOutput, string>;
  return { stage: { ...declared, stackId: stack.stackId, outputs }, cloud };
};

/**
 * The environment our code (functions/) reads to reach a deployed stage from this machine: the
 * table, the queues, the state machine, the secrets' ARNs (read through Secrets Manager, never
 * printed), the sender. What a Lambda of the stage gets from the stack, for the ops CLI.
 */
export const stageEnvironment = (stage: DeployedStage): Record<string, string> => ({
  AWS_REGION: stage.region,
  TABLE_NAME: stage.outputs.tableName,
  PROCESSOR_EVENTS_QUEUE_URL: stage.outputs.processorEventsQueueUrl,
  PROCESSOR_EVENTS_DLQ_URL: stage.outputs.processorEventsDlqUrl,
  PLAN_CHANGE_STATE_MACHINE_ARN: stage.outputs.planChangeStateMachineArn,
  MAIL_FROM: stage.outputs.mailFrom,
  ...Object.fromEntries(
    Object.values(STAGE_SECRETS).map((secret) => [`${secret.variable}_ARN`, stage.outputs[secret.output]]),
  ),
});

/** One secret's state: still the placeholder (or not its shape), or set. Never its value. */
export interface SecretState {
  name: StageSecret;
  set: boolean;
  problem?: string;
  /** Not in this environment at all (a local control plane without that stand-in). */
  absent?: true;
}

/** Reads each secret and says which still hold a placeholder (functions/core/secret-shape.ts). */
export const secretStates = async (
  read: (name: StageSecret) => Promise<string | undefined>,
): Promise<SecretState[]> =>
  Promise.all(
    (Object.keys(STAGE_SECRETS) as StageSecret[]).map(async (name): Promise<SecretState> => {
      const value = await read(name);
      if (value === undefined) return { name, set: false, absent: true };
      const problem = secretPlaceholderProblem(STAGE_SECRETS[name].variable, value);
      return problem ? { name, set: false, problem } : { name, set: true };
    }),
  );

/**
 * Checks a value before it is written to `name` (read from standard input): refused, with nothing
 * written, when it is empty or not the secret's shape; answers the value without a trailing line end.
 */
export const checkedSecretValue = (name: StageSecret, input: string): string => {
  const value = input.replace(/\r?\n$/, '');
  const problem = secretPlaceholderProblem(STAGE_SECRETS[name].variable, value);
  if (problem) throw new StageProblem(`Refused: ${problem}. Nothing was written.`);
  return value;
};

/** A resource of the stage's name that no live stack holds: what to delete by hand. */
export interface Leftover {
  arn: string;
  kind: string;
  delete: string;
}

const DELETE_HOW: [RegExp, string, (arn: string) => string][] = [
  [
    /^arn:[^:]+:dynamodb:[^:]+:[^:]+:table\/([^/]+)$/,
    'DynamoDB table',
    (name) => `aws dynamodb delete-table --table-name ${name}`,
  ],
  [/^arn:[^:]+:s3:::(.+)$/, 'S3 bucket', (name) => `aws s3 rb s3://${name} --force`],
  [
    /^arn:[^:]+:kms:[^:]+:[^:]+:key\/(.+)$/,
    'KMS key',
    (id) => `aws kms schedule-key-deletion --key-id ${id} --pending-window-in-days 7`,
  ],
  [
    /^arn:[^:]+:logs:[^:]+:[^:]+:log-group:([^:]+)(:\*)?$/,
    'log group',
    (name) => `aws logs delete-log-group --log-group-name ${name}`,
  ],
  [
    /^arn:[^:]+:secretsmanager:[^:]+:[^:]+:secret:(.+)$/,
    'secret',
    (name) => `aws secretsmanager delete-secret --secret-id ${name} --force-delete-without-recovery`,
  ],
];

/**
 * The resources tagged with the stage's stack name that the live stack (when there is one) does
 * not hold: what a failed first deploy or a deleted stage left behind, with the command that
 * deletes each.
 */
export const leftovers = (
  tagged: readonly { arn: string; stackId: string | undefined }[],
  liveStackId: string | undefined,
): Leftover[] =>
  tagged
    .filter((resource) => liveStackId === undefined || resource.stackId !== liveStackId)
    .map((resource) => {
      for (const [pattern, kind, how] of DELETE_HOW) {
        const name = pattern.exec(resource.arn)?.[1];
        if (name) return { arn: resource.arn, kind, delete: how(name) };
      }
      return { arn: resource.arn, kind: 'resource', delete: 'delete it in its service console' };
    });
