import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { EXPORT_RETENTION_DAYS } from '#core/exports.ts';
import { ConsoleSite } from '../../lib/infra/constructs/console.ts';
import { ExportArchives, PLACEHOLDER_SIGNING_PUBLIC_KEY } from '../../lib/infra/constructs/exports.ts';
import { routes } from '../../lib/routes.ts';
import {
  onlyDistributionReads,
  PRIVATE_ENCRYPTED_BUCKET,
  synthesizedStack,
} from '../support/synthesized-stack.ts';

/**
 * The export archives' infrastructure (lib/infra/constructs/exports.ts): a private bucket that only the
 * console's CloudFront distribution reads, through origin access control, under `/exports/*`,
 * and only with URLs signed by the trusted key group; the signing key readable by the download
 * route alone, the bucket writable by the Dispatcher's upload routes alone.
 */

type Resource = { Properties: Record<string, unknown> };
const { template } = synthesizedStack();

const only = (type: string): [string, Resource] => {
  const found = Object.entries(template.findResources(type)) as [string, Resource][];
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};

/** The exports bucket (the console's site has a bucket of its own: test/infra/console-hosting.test.ts). */
const archivesBucket = (): [string, Resource] => {
  const found = (Object.entries(template.findResources('AWS::S3::Bucket')) as [string, Resource][]).filter(
    ([id]) => id.startsWith('ExportsArchives'),
  );
  expect(found, 'the exports bucket').toHaveLength(1);
  return found[0] as [string, Resource];
};

const policyOf = (routeId: string): string => {
  const found = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) =>
    id.startsWith(`Api${routeId}ServiceRoleDefaultPolicy`),
  );
  // A function with no grant at all (no table, no secret) has no policy.
  expect(found.length, routeId).toBeLessThanOrEqual(1);
  return JSON.stringify(
    (found[0]?.[1] as Resource | undefined)?.Properties.PolicyDocument ?? { Statement: [] },
  );
};

const environmentOf = (routeId: string): Record<string, unknown> => {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
    new RegExp(`^Api${routeId}[0-9A-F]{8}$`).test(id),
  );
  expect(found, routeId).toHaveLength(1);
  const [, resource] = found[0] as [string, Resource];
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
};

describe('the exports bucket', () => {
  it('is private, TLS only, encrypted, and forgets archives after the retention and unfinished uploads after a day', () => {
    const [bucketId] = archivesBucket();
    template.hasResourceProperties('AWS::S3::Bucket', {
      ...PRIVATE_ENCRYPTED_BUCKET,
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            ExpirationInDays: EXPORT_RETENTION_DAYS,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            Status: 'Enabled',
          }),
        ],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('lets only the distribution read it: one Allow, to CloudFront, GetObject, conditioned on the distribution', () => {
    const [distributionId] = only('AWS::CloudFront::Distribution');
    const [bucketId] = archivesBucket();
    onlyDistributionReads(template, bucketId, distributionId);
  });
});

describe("the console's distribution", () => {
  it('serves /exports/* from the bucket through origin access control (sigv4, always), HTTPS only, signed URLs only', () => {
    const [oacId] = only('AWS::CloudFront::OriginAccessControl');
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    });
    const [keyGroupId] = only('AWS::CloudFront::KeyGroup');
    const [, distribution] = only('AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig as {
      Origins: { Id: string; OriginAccessControlId?: unknown; S3OriginConfig?: unknown }[];
      CacheBehaviors: Record<string, unknown>[];
      DefaultCacheBehavior: Record<string, unknown>;
    };
    const exportsBehavior = config.CacheBehaviors.find((behavior) => behavior.PathPattern === '/exports/*');
    expect(exportsBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD'],
      TrustedKeyGroups: [{ Ref: keyGroupId }],
    });
    const s3Origin = config.Origins.find((origin) => origin.Id === exportsBehavior?.TargetOriginId);
    expect(s3Origin?.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(s3Origin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    // The app is the default behaviour, and needs no signature.
    expect(config.DefaultCacheBehavior.TrustedKeyGroups).toBeUndefined();
    expect(config.DefaultCacheBehavior.TargetOriginId).not.toBe(exportsBehavior?.TargetOriginId);
  });

  it('trusts one key group holding the download public key (a placeholder, with a note, until configured)', () => {
    const [publicKeyId] = only('AWS::CloudFront::PublicKey');
    template.hasResourceProperties('AWS::CloudFront::KeyGroup', {
      KeyGroupConfig: { Items: [{ Ref: publicKeyId }] },
    });
    template.hasResourceProperties('AWS::CloudFront::PublicKey', {
      PublicKeyConfig: { EncodedKey: PLACEHOLDER_SIGNING_PUBLIC_KEY },
    });
  });

  it('takes the public key from the context, and then says nothing more', () => {
    const stack = new Stack(new App(), 'Scratch');
    const ownKey = PLACEHOLDER_SIGNING_PUBLIC_KEY.replace('FQIDAQAB', 'FQIDAQAC');
    new ExportArchives(stack, 'Exports', {
      site: new ConsoleSite(stack, 'Console'),
      signingPublicKey: ownKey,
    });
    Template.fromStack(stack).hasResourceProperties('AWS::CloudFront::PublicKey', {
      PublicKeyConfig: { EncodedKey: ownKey },
    });
    Annotations.fromStack(stack).hasNoInfo('*', Match.stringLikeRegexp('exportsSigningPublicKey'));
    const placeholder = new Stack(new App(), 'Placeholder');
    new ExportArchives(placeholder, 'Exports', { site: new ConsoleSite(placeholder, 'Console') });
    Annotations.fromStack(placeholder).hasInfo('*', Match.stringLikeRegexp('exportsSigningPublicKey'));
  });
});

describe('who may do what with the exports', () => {
  it('only the download route reads the signing key secret, and it touches no bucket; it knows the key id and base URL', () => {
    const [secretId] = Object.entries(template.findResources('AWS::SecretsManager::Secret')).find(([id]) =>
      id.startsWith('ExportsSigningKey'),
    ) ?? [''];
    expect(secretId).not.toBe('');
    const [publicKeyId] = only('AWS::CloudFront::PublicKey');
    for (const route of routes) {
      const policy = policyOf(route.id);
      if (route.id === 'PostStackExportDownload') {
        expect(policy).toContain(`{"Ref":"${secretId}"}`);
        expect(policy).toContain('secretsmanager:GetSecretValue');
        expect(policy).not.toContain('s3:');
        const variables = environmentOf(route.id);
        expect(variables.EXPORTS_SIGNING_KEY_ARN).toEqual({ Ref: secretId });
        expect(variables.EXPORTS_SIGNING_KEY_PAIR_ID).toEqual({ Ref: publicKeyId });
        expect(JSON.stringify(variables.EXPORTS_DOWNLOAD_BASE_URL)).toContain('DomainName');
        expect(variables.EXPORTS_BUCKET).toBeUndefined();
      } else {
        expect(policy, route.id).not.toContain(secretId);
      }
    }
  });

  it('only the Dispatcher upload routes write the bucket: put and get on its objects, nothing else', () => {
    const [bucketId] = archivesBucket();
    const uploaders = routes.filter((route) => route.exportsBucket === 'upload').map((route) => route.id);
    expect(uploaders.sort()).toEqual(['PostDispatcherExportOutcome', 'PostDispatcherExportParts']);
    for (const route of routes) {
      const policy = JSON.parse(policyOf(route.id)) as {
        Statement: { Action: unknown; Resource: unknown }[];
      };
      const s3 = policy.Statement.filter((statement) => JSON.stringify(statement.Action).includes('s3:'));
      if (uploaders.includes(route.id)) {
        expect(s3).toHaveLength(1);
        expect(s3[0]?.Action).toEqual(['s3:GetObject', 's3:PutObject']);
        expect(s3[0]?.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] });
        expect(environmentOf(route.id).EXPORTS_BUCKET).toEqual({ Ref: bucketId });
      } else {
        expect(s3, route.id).toEqual([]);
      }
    }
  });
});
