import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { SYNTH_CHECK_STAGE } from '../../lib/infra/settings.ts';

/**
 * Two stages in one account (issue 22 item 1): the stage goes into the stack's name and every
 * physical name the template sets, so a staging copy deploys beside production without "already
 * exists". Not bundled: names do not depend on the bundles.
 */

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** Names that live inside their parent resource, not in the account or region. */
const SCOPED = new Set([
  'AttributeName', // a table's attributes
  'IndexName', // a table's indexes
  'MetricName', // an alarm's metric (the namespace and dimensions place it)
  'PolicyName', // an inline policy of one role
  'StageName', // an HTTP API's stage
]);
/** Names of resources that AWS does not require to be unique (an HTTP API, its authorizer). */
const NOT_UNIQUE = new Set(['AWS::ApiGatewayV2::Api.Name', 'AWS::ApiGatewayV2::Authorizer.Name']);

/** A string, or a join of literal strings (a name with the stack's name in it). */
const literal = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
  if (!join) return undefined;
  const parts = join[1].map(literal);
  return parts.every((part) => part !== undefined) ? parts.join(join[0]) : undefined;
};

/** Every explicit physical name in a template: `<type>.<property path>` => value. */
const physicalNames = (resources: Resources): Map<string, string> => {
  const found = new Map<string, string>();
  const walk = (value: unknown, type: string, path: string[]) => {
    const key = path.at(-1) ?? '';
    if (/Name$/.test(key) && !SCOPED.has(key) && !path.includes('Dimensions')) {
      const name = literal(value);
      const where = `${type}.${path.join('.')}`;
      if (name !== undefined && !NOT_UNIQUE.has(where)) {
        found.set(`${where}=${name}`, name);
        return;
      }
    }
    if (Array.isArray(value)) for (const item of value) walk(item, type, path);
    else if (value && typeof value === 'object')
      for (const [child, item] of Object.entries(value)) walk(item, type, [...path, child]);
  };
  for (const resource of Object.values(resources)) walk(resource.Properties ?? {}, resource.Type, []);
  return found;
};

const synthesize = (stage: string) => {
  const context = synthCheckContext({ stage, 'aws:cdk:bundling-stacks': [] });
  const stages = context.stages as Record<string, unknown>;
  // The second stage: the synth-check values under another stage name.
  context.stages = { ...stages, [stage]: stages[SYNTH_CHECK_STAGE] };
  const { stack } = buildApp(new App({ context }));
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Resources };
};

let first: ReturnType<typeof synthesize>;
let second: ReturnType<typeof synthesize>;

beforeAll(() => {
  first = synthesize(SYNTH_CHECK_STAGE);
  second = synthesize('staging');
}, 180_000);

describe('two stages in one account', () => {
  it("the stage is in the stack's name", () => {
    expect(first.stack.stackName).toBe('StackControlPlane-synth-check');
    expect(second.stack.stackName).toBe('StackControlPlane-staging');
  });

  it('the account- and region-wide names are there, each with the stage in it', () => {
    const names = physicalNames(second.resources);
    for (const property of [
      'AWS::CloudFront::OriginAccessControl.OriginAccessControlConfig.Name',
      'AWS::CloudFront::ResponseHeadersPolicy.ResponseHeadersPolicyConfig.Name',
      'AWS::CloudFront::PublicKey.PublicKeyConfig.Name',
      'AWS::CloudFront::KeyGroup.KeyGroupConfig.Name',
      'AWS::KMS::Alias.AliasName',
    ])
      expect(
        [...names.keys()].filter((key) => key.startsWith(`${property}=`)),
        property,
      ).not.toEqual([]);
    for (const name of names.values()) expect(name.toLowerCase().replace(/-/g, '')).toContain('staging');
  });

  it('no explicit physical name is in both templates', () => {
    const theirs = new Set(physicalNames(second.resources).values());
    const common = [...physicalNames(first.resources)].filter(([, name]) => theirs.has(name));
    expect(common).toEqual([]);
  });
});
