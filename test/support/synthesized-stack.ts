import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect, inject } from 'vitest';
import { flattenedTemplate, stackFiles } from '../../lib/infra/assembly.ts';

/**
 * The app as `cdk synth` makes it, synthesized once for the infra layer by its global setup
 * (test/support/infra-setup.ts): the template (the root stack and its nested stacks read as one,
 * lib/infra/assembly.ts), the root's own, each stack's file, the assembly's folder and the
 * acknowledged cdk-nag rules.
 */
export const synthesizedStack = () => {
  const { directory, templateFile, stacks, acknowledgements } = inject('synthesizedStack');
  const template = Template.fromJSON(flattenedTemplate(directory, stacks));
  const rootTemplate = Template.fromJSON(
    JSON.parse(readFileSync(path.join(directory, templateFile), 'utf8')),
  );
  return { template, rootTemplate, stacks, assemblyDirectory: directory, acknowledgements };
};

/** An app's stacks read as one template (lib/infra/assembly.ts), for a file that synthesizes its own. */
export const flattenedApp = (root: Stack, directory: string): Template =>
  Template.fromJSON(flattenedTemplate(directory, stackFiles(root)));

/** cdk-nag's findings in an assembly (its validation report): none is the only good answer. */
export const nagViolations = (assemblyDirectory: string): unknown[] => {
  const report = JSON.parse(readFileSync(path.join(assemblyDirectory, 'validation-report.json'), 'utf8'));
  return (report.pluginReports ?? []).flatMap(
    (plugin: { violations?: unknown[] }) => plugin.violations ?? [],
  );
};

/** What every private bucket of ours has: public access blocked, server-side encryption. */
export const PRIVATE_ENCRYPTED_BUCKET = {
  PublicAccessBlockConfiguration: {
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  },
  BucketEncryption: {
    ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
  },
};

/**
 * Checks that the bucket's one policy lets only the distribution read it (one Allow: CloudFront,
 * GetObject, conditioned on that distribution) and answers the policy's statements.
 */
export const onlyDistributionReads = (template: Template, bucketId: string, distributionId: string) => {
  const policies = Object.values(template.findResources('AWS::S3::BucketPolicy')).filter(
    (policy) => JSON.stringify(policy.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
  );
  expect(policies).toHaveLength(1);
  const [policy] = policies as [{ Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }];
  const statements = policy.Properties.PolicyDocument.Statement;
  const allows = statements.filter((statement) => statement.Effect === 'Allow');
  expect(allows).toHaveLength(1);
  expect(allows[0]).toMatchObject({
    Action: 's3:GetObject',
    Principal: { Service: 'cloudfront.amazonaws.com' },
  });
  expect(JSON.stringify(allows[0]?.Condition)).toContain('AWS:SourceArn');
  expect(JSON.stringify(allows[0]?.Condition)).toContain(`{"Ref":"${distributionId}"}`);
  return statements;
};
