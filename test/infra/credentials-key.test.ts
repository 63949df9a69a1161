import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { CREDENTIALS_KEY_ACTION, SEAL_OPEN_CONDITIONS } from '../../lib/infra/constructs/credentials-key.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { flattenedApp, nagViolations } from '../support/synthesized-stack.ts';

/**
 * No route uses the Credentials key yet: this file flags one (the first session route) through a
 * mocked lib/routes.ts, so the stack's wiring of `usesCredentialsKey` is what is tested, whatever
 * routes set the flag later (they are flagged here too).
 */
const FLAGGED_HERE = vi.hoisted(() => ({ id: '' }));
vi.mock('../../lib/routes.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/routes.ts')>();
  const first = original.routes.find((route) => route.auth === 'session' && !route.usesCredentialsKey);
  if (!first) throw new Error('no session route to flag');
  FLAGGED_HERE.id = first.id;
  return {
    ...original,
    routes: original.routes.map(
      (route): Route => (route === first ? { ...route, usesCredentialsKey: 'seal' } : route),
    ),
  };
});

type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };

let resources: Record<string, Resource>;
let assemblyDirectory: string;

beforeAll(() => {
  // Not bundled (the template is the same but for asset hashes); the synth runs cdk-nag.
  const { app, stack } = buildApp(
    new App({ context: { ...synthCheckContext(), 'aws:cdk:bundling-stacks': [] } }),
  );
  assemblyDirectory = app.synth().directory;
  // The root stack and its nested stacks (the routes' functions) read as one template.
  resources = flattenedApp(stack, assemblyDirectory).toJSON().Resources as Record<string, Resource>;
}, 120_000);

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const theKey = () => {
  const keys = ofType('AWS::KMS::Key');
  expect(keys, 'one KMS key').toHaveLength(1);
  return keys[0] as [string, Resource];
};
const functionIdOf = (routeId: string) => {
  const ids = ofType('AWS::Lambda::Function')
    .map(([id]) => id)
    .filter((id) => new RegExp(`^Api${routeId}[0-9A-F]{8}$`).test(id));
  expect(ids, routeId).toHaveLength(1);
  return ids[0] as string;
};
const propertiesOf = (logicalId: string) => {
  const found = resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found.Properties;
};
const roleOf = (functionId: string) =>
  (propertiesOf(functionId).Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0] ?? '';
const statementsOf = (roleId: string): Statement[] =>
  ofType('AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
const actionsOf = (statement: Statement) => [statement.Action].flat();

describe('the Credentials key in the CDK stack', () => {
  it('is one symmetric KMS key, rotated, retained on stack delete and replacement (not on the rollback of its creation), with its alias', () => {
    const [keyId, key] = theKey();
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('RetainExceptOnCreate');
    expect(key.UpdateReplacePolicy).toBe('Retain');
    expect(key.Properties.Description).toEqual(expect.stringContaining('Credentials'));
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    const aliases = ofType('AWS::KMS::Alias');
    expect(aliases).toHaveLength(1);
    expect(aliases[0]?.[1].Properties).toEqual({
      AliasName: 'alias/StackControlPlane-synth-check-credentials',
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
  });

  it("a route with usesCredentialsKey gets exactly its use's one action on that key (seal: GenerateDataKey, open: Decrypt), under the encryption context, and CREDENTIALS_KEY_ID", () => {
    const [keyId] = theKey();
    const flagged = routes.filter((route) => route.usesCredentialsKey);
    expect(flagged.map((route) => route.id)).toContain(FLAGGED_HERE.id);
    for (const route of flagged) {
      const fnId = functionIdOf(route.id);
      const kmsStatements = statementsOf(roleOf(fnId)).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('kms:')),
      );
      expect(kmsStatements, route.id).toHaveLength(1);
      const [statement] = kmsStatements as [Statement];
      expect(statement.Effect).toBe('Allow');
      const use = route.usesCredentialsKey as 'seal' | 'open';
      expect(actionsOf(statement), route.id).toEqual([CREDENTIALS_KEY_ACTION[use]]);
      expect(actionsOf(statement), route.id).toEqual([
        { seal: 'kms:GenerateDataKey', open: 'kms:Decrypt' }[use],
      ]);
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      // Only under a Credential's encryption context: exactly the keys the code sends.
      expect(statement.Condition).toEqual(SEAL_OPEN_CONDITIONS);
      const variables = (propertiesOf(fnId).Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.CREDENTIALS_KEY_ID, route.id).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    }
  });

  it('no other function may use the key, nor knows it', () => {
    const allowed = new Set(
      routes.filter((route) => route.usesCredentialsKey).map((route) => roleOf(functionIdOf(route.id))),
    );
    const others = ofType('AWS::IAM::Policy').filter(
      ([, policy]) =>
        JSON.stringify(policy.Properties.PolicyDocument).includes('kms:') &&
        !(policy.Properties.Roles as { Ref: string }[]).every((role) => allowed.has(role.Ref)),
    );
    expect(others.map(([id]) => id)).toEqual([]);
    const knowing = ofType('AWS::Lambda::Function').filter(
      ([id, fn]) =>
        'CREDENTIALS_KEY_ID' in
          ((fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
            {}) && !allowed.has(roleOf(id)),
    );
    expect(knowing.map(([id]) => id)).toEqual([]);
  });

  it('passes cdk-nag with nothing unacknowledged', () => {
    expect(nagViolations(assemblyDirectory)).toEqual([]);
  });
});
