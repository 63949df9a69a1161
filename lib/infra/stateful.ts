import { Aws, CfnResource, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { SecretProps } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct, IConstruct } from 'constructs';
import { stageOfStack } from '../deployment.ts';

/**
 * The resources that hold what a stage cannot lose or must not see replaced, with their logical
 * ids written down: CloudFormation replaces a resource whose logical id changes (a new, empty
 * table), so a refactor of the construct tree must never move them. Each is pinned here
 * (pinStateful), and test/infra/day-one.test.ts reads the ids from the template.
 */
export const STATEFUL_LOGICAL_IDS = {
  table: 'DataTableFDBAD0F2',
  credentialsKey: 'CredentialsKey841FDBB1',
  exportsBucket: 'ExportsArchives25DC4B19',
  consoleBucket: 'ConsoleFiles2D43986C',
  consoleDistribution: 'ConsoleDistribution022D3262',
} as const;

export type StatefulResource = keyof typeof STATEFUL_LOGICAL_IDS;

/**
 * Pins `construct`'s resource to its logical id and, for what holds data, sets the policy that
 * survives a bad day: kept when the stack is deleted or the resource replaced, deleted when the
 * deploy that created it is rolled back (RetainExceptOnCreate), so a failed first deploy leaves
 * nothing behind and its retry creates one set, not a second.
 */
export const pinStateful = (
  construct: IConstruct,
  name: StatefulResource,
  options: { keepsData: boolean },
) => {
  const resource = construct.node.defaultChild as CfnResource;
  if (!CfnResource.isCfnResource(resource)) throw new Error(`${construct.node.path} has no resource to pin`);
  resource.overrideLogicalId(STATEFUL_LOGICAL_IDS[name]);
  if (options.keepsData) resource.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
};

/**
 * A secret of the stage: its name starts with the stack's (the stage), its description names the
 * stage and how to set it, so a value is not pasted into another stage's secret. The name ends with
 * a part of the stack's id, new at each stack creation: a failed first deploy's secret, which
 * Secrets Manager may still hold as scheduled for deletion, never blocks the retry's.
 */
/** `ProcessorApiKey`: `processor-api-key`, the secret's name in the ops CLI (lib/deployment.ts, STAGE_SECRETS). */
export const kebab = (id: string) => id.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase();

export const stageSecretProps = (scope: Construct, id: string, what: string): SecretProps => {
  const stack = Stack.of(scope);
  const stage = stageOfStack(stack.stackName);
  const stackIdTail = Fn.select(4, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID))));
  return {
    secretName: `${stack.stackName}/${id}-${stackIdTail}`,
    description: `${what}, of stage "${stage}" (${stack.stackName}): set its value after the first deploy (npm run ops -- secrets set ${kebab(id)} --stage ${stage}).`,
  };
};
