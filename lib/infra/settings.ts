import { CDK_CONTEXT, type ContextSetting } from '../../functions/ports/config.ts';
import { parseCapacity, STAGE_NAME, stackNameOf } from '../deployment.ts';

/**
 * The deployment's settings, read from CDK context and checked before anything is built (issue 22):
 * a value a platform team forgot to set stops `cdk synth` with one line that says what to set.
 *
 * Settings are per stage: `cdk.json`'s `stages.<stage>` holds one stage's values (`-c stage=<name>`,
 * default `dev`); a top-level context value applies to every stage that does not set its own
 * (GitHub's endpoints, or a `-c key=value`).
 */

/** The stage a deploy without `-c stage=...` gets. */
export const DEFAULT_STAGE = 'dev';

/**
 * The stage CI and the infra tests synthesize: test values only (reserved `.test` domains), and
 * pinned to account 000000000000, which no credentials are for, so the CDK CLI refuses to deploy it.
 */
export const SYNTH_CHECK_STAGE = 'synth-check';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const ACCOUNT = /^\d{12}$/;
/** `replace-with-...` and the documentation domains (example.com/.net/.org, RFC 2606). */
const PLACEHOLDER = /replace-with-|(^|[.@/])example\.(com|net|org)\b/i;
/** CloudFront reads certificates from ACM in us-east-1 only. */
const US_EAST_1_CERTIFICATE = /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[^/]+$/;

/** A context problem: `cdk synth` prints its message, one line, and stops. */
export class ContextError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.problems = problems;
    this.name = 'ContextError';
  }
}

export interface DeploymentSettings {
  stage: string;
  /** The stack's name, and the prefix of every account-wide name the stack sets. */
  stackName: string;
  region: string;
  /** When set, the CDK CLI deploys only with credentials of this account. */
  account?: string;
  settings: Partial<Record<ContextSetting, string>>;
}

/** What the app reads context from (an App's node, or a plain lookup in tests). */
export interface ContextSource {
  tryGetContext(key: string): unknown;
}

export { stackNameOf };

/**
 * Reads and checks the context of one stage. Every problem is one line, naming the key and where
 * to set it; all of them are reported at once.
 */
export const readDeploymentSettings = (context: ContextSource): DeploymentSettings => {
  const problems: string[] = [];
  const stageValue = context.tryGetContext('stage') ?? DEFAULT_STAGE;
  const stage = typeof stageValue === 'string' ? stageValue : '';
  if (!STAGE_NAME.test(stage))
    throw new ContextError([
      `context "stage" must be a short lower-case name (a letter, then letters, digits or "-", 20 at most); got ${JSON.stringify(stageValue)}`,
    ]);
  const where = `cdk.json under "stages"."${stage}"`;
  const stages = context.tryGetContext('stages');
  const own: Record<string, unknown> =
    typeof stages === 'object' && stages !== null
      ? (((stages as Record<string, unknown>)[stage] as Record<string, unknown> | undefined) ?? {})
      : {};
  const lookup = (key: string): unknown => own[key] ?? context.tryGetContext(key);
  const text = (key: string): string | undefined => {
    const value = lookup(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      problems.push(`context "${key}" must be a string: set it in ${where}`);
      return undefined;
    }
    if (PLACEHOLDER.test(value)) {
      problems.push(
        `context "${key}" is still the placeholder ${JSON.stringify(value)}: set your own in ${where}`,
      );
      return undefined;
    }
    return value;
  };

  const region = text('region');
  if (region === undefined && !problems.some((problem) => problem.includes('"region"')))
    problems.push(
      `context "region" is not set: set the AWS region to deploy stage "${stage}" to (e.g. "eu-west-1") in ${where}; the CLI's default would be us-east-1`,
    );
  else if (region !== undefined && !REGION.test(region))
    problems.push(
      `context "region" ${JSON.stringify(region)} is not an AWS region: set one (e.g. "eu-west-1") in ${where}`,
    );
  const account = text('account');
  if (account !== undefined && !ACCOUNT.test(account))
    problems.push(
      `context "account" ${JSON.stringify(account)} is not a 12-digit AWS account id: set it in ${where}, or remove it to deploy to the credentials' account`,
    );

  const settings: Partial<Record<ContextSetting, string>> = {};
  for (const [key, setting] of Object.entries(CDK_CONTEXT) as [
    ContextSetting,
    (typeof CDK_CONTEXT)[ContextSetting],
  ][]) {
    const value = text(key);
    if (value !== undefined) settings[key] = value;
    else if (setting.required && !problems.some((problem) => problem.includes(`"${key}"`)))
      problems.push(`context "${key}" is not set: set it in ${where}`);
  }

  if (settings.sesMaxSendRate !== undefined && !/^[1-9][0-9]*$/.test(settings.sesMaxSendRate))
    problems.push(
      `context "sesMaxSendRate" must be a whole number of emails per second (the SES account's maximum send rate, e.g. "14"): set it in ${where}`,
    );
  const certificate = settings.consoleCertificateArn;
  if (certificate !== undefined && !US_EAST_1_CERTIFICATE.test(certificate))
    problems.push(
      `context "consoleCertificateArn" must be an ACM certificate in us-east-1 (CloudFront reads no other region): request or import it there and set its ARN in ${where}`,
    );
  if ((settings.consoleDomainName === undefined) !== (certificate === undefined))
    problems.push(
      `contexts "consoleDomainName" and "consoleCertificateArn" go together: set both, or neither, in ${where}`,
    );

  if (
    settings.exportsSigningPreviousPublicKey !== undefined &&
    settings.exportsSigningPublicKey === undefined
  )
    problems.push(
      `context "exportsSigningPreviousPublicKey" is set without "exportsSigningPublicKey": set the key to sign with in ${where}`,
    );

  if (settings.capacity !== undefined) {
    try {
      parseCapacity(settings.capacity);
    } catch (error) {
      problems.push(`context "capacity" ${(error as Error).message}: set it in ${where}`);
    }
  }

  const fleetStacks = settings.fleetStacks;
  if (fleetStacks !== undefined && !/^[1-9]\d{0,8}$/.test(fleetStacks))
    problems.push(
      `context "fleetStacks" ${JSON.stringify(fleetStacks)} is not a whole number of Stacks above 0: set it in ${where}`,
    );

  if (problems.length > 0 || region === undefined) throw new ContextError(problems);
  return {
    stage,
    stackName: stackNameOf(stage),
    region,
    ...(account === undefined ? {} : { account }),
    settings,
  };
};
