import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { describe, expect, it } from 'vitest';
import { CONSOLE_CACHE_CONTROL, CONSOLE_CSP, CONSOLE_SECURITY_HEADERS } from '../../lib/console-headers.ts';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { API_PATH_PATTERN, apiPathPatterns, CONSOLE_DIRECTORY } from '../../lib/infra/constructs/console.ts';
import { routes, servedPaths } from '../../lib/routes.ts';
import {
  flattenedApp,
  nagViolations,
  onlyDistributionReads,
  PRIVATE_ENCRYPTED_BUCKET,
  synthesizedStack,
} from '../support/synthesized-stack.ts';

/**
 * The tenant console in the cloud (lib/infra/constructs/console.ts, issue 15): its files in a private
 * bucket deployed from lib/console/, the distribution's default behaviour through origin access
 * control with the console's security headers, and the API on the same site under `/v1/*`.
 */

type Resource = { Properties: Record<string, unknown> };
type Behavior = Record<string, unknown>;
interface DistributionConfig {
  DefaultRootObject?: string;
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  Origins: {
    Id: string;
    DomainName: unknown;
    OriginAccessControlId?: unknown;
    S3OriginConfig?: unknown;
    CustomOriginConfig?: Record<string, unknown>;
  }[];
  Aliases?: string[];
}

const { template, assemblyDirectory } = synthesizedStack();

const entries = (type: string, from = template): [string, Resource][] =>
  Object.entries(from.findResources(type)) as [string, Resource][];

const consoleBucket = (): string => {
  const found = entries('AWS::S3::Bucket').filter(([id]) => id.startsWith('ConsoleFiles'));
  expect(found, 'the console bucket').toHaveLength(1);
  return found[0]?.[0] ?? '';
};

const distribution = (from = template): [string, DistributionConfig] => {
  const found = entries('AWS::CloudFront::Distribution', from);
  expect(found, 'one distribution').toHaveLength(1);
  const [id, resource] = found[0] as [string, Resource];
  return [id, resource.Properties.DistributionConfig as DistributionConfig];
};

const originOf = (config: DistributionConfig, behavior: Behavior | undefined) =>
  config.Origins.find((origin) => origin.Id === behavior?.TargetOriginId);

const lambdaEnvironments = (from: Template): Record<string, unknown>[] =>
  entries('AWS::Lambda::Function', from)
    .map(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables,
    )
    .filter((variables): variables is Record<string, unknown> => variables?.TABLE_NAME !== undefined);

describe("the console's bucket", () => {
  it('is private, TLS only and encrypted', () => {
    const bucketId = consoleBucket();
    expect(template.toJSON().Resources[bucketId].Properties).toMatchObject({
      ...PRIVATE_ENCRYPTED_BUCKET,
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
  });

  it('its policy allows only this distribution to read it (and denies plain HTTP)', () => {
    const bucketId = consoleBucket();
    const [distributionId] = distribution();
    const statements = onlyDistributionReads(template, bucketId, distributionId);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('is filled from lib/console/: the page at the root, the other files under console/, revalidated every time', () => {
    const bucketId = consoleBucket();
    const deployments = entries('Custom::CDKBucketDeployment').map(([, deployment]) => deployment.Properties);
    expect(deployments).toHaveLength(2);
    for (const deployment of deployments) {
      expect(deployment.DestinationBucketName).toEqual({ Ref: bucketId });
      expect(deployment.SystemMetadata).toEqual({ 'cache-control': CONSOLE_CACHE_CONTROL });
    }
    const page = deployments.find((deployment) => deployment.DestinationBucketKeyPrefix === undefined);
    expect(page).toMatchObject({ Include: ['index.html'], Exclude: ['*'], Prune: false });
    const assets = deployments.find((deployment) => deployment.DestinationBucketKeyPrefix === 'console/');
    expect(assets).toMatchObject({ Exclude: ['index.html'], Prune: true });

    // Both deploy the one asset, which is lib/console/ as it is.
    const keys = new Set(deployments.map((deployment) => JSON.stringify(deployment.SourceObjectKeys)));
    expect(keys.size).toBe(1);
    const [key] = (page?.SourceObjectKeys as string[] | undefined) ?? [];
    const manifest = JSON.parse(
      readFileSync(path.join(assemblyDirectory, 'StackControlPlane-synth-check.assets.json'), 'utf8'),
    ) as {
      files: Record<
        string,
        { source: { path: string }; destinations: Record<string, { objectKey: string }> }
      >;
    };
    const asset = Object.values(manifest.files).find((file) =>
      Object.values(file.destinations).some((destination) => destination.objectKey === key),
    );
    expect(asset, 'the deployed asset').toBeDefined();
    // Every file, in the folders of lib/console/ too (the screens' modules).
    const files = (directory: string) => readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort();
    const staged = files(path.join(assemblyDirectory, asset?.source.path ?? ''));
    expect(staged).toEqual(files(CONSOLE_DIRECTORY));
    expect(staged).toContain('index.html');
    expect(staged).toContain(path.join('screens', 'stacks.js'));
  });
});

describe("the console's distribution", () => {
  it('serves the console bucket as its default behaviour, through origin access control, index.html at /', () => {
    const bucketId = consoleBucket();
    const [, config] = distribution();
    const [oacId] = entries('AWS::CloudFront::OriginAccessControl').map(([id]) => id);
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    });
    expect(config.DefaultRootObject).toBe('index.html');
    const origin = originOf(config, config.DefaultCacheBehavior);
    expect(origin?.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(origin?.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(origin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
    });
    expect(config.DefaultCacheBehavior.TrustedKeyGroups).toBeUndefined();
  });

  it("answers the console's files with the same CSP and security headers as npm start", () => {
    const [, config] = distribution();
    // Two policies: the files' (this one) and the API's and downloads' (test/infra/edge-transport.test.ts).
    const policies = entries('AWS::CloudFront::ResponseHeadersPolicy');
    expect(policies).toHaveLength(2);
    const [policyId, policy] = policies.find(([id]) => id.startsWith('ConsoleHeaders')) as [string, Resource];
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const security = (policy.Properties.ResponseHeadersPolicyConfig as { SecurityHeadersConfig: unknown })
      .SecurityHeadersConfig;
    expect(security).toMatchObject({
      ContentSecurityPolicy: { ContentSecurityPolicy: CONSOLE_CSP, Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: CONSOLE_SECURITY_HEADERS['referrer-policy'], Override: true },
    });
    expect(CONSOLE_SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    expect(CONSOLE_CSP).toContain("script-src 'self'");
  });

  it(`sends ${API_PATH_PATTERN} and the specification's /credentials paths to the HTTP API: uncached, every method, every viewer header but Host`, () => {
    const [, config] = distribution();
    const [apiId] = entries('AWS::ApiGatewayV2::Api').map(([id]) => id);
    expect(apiPathPatterns()).toEqual([API_PATH_PATTERN, '/credentials*']);
    for (const pattern of apiPathPatterns()) {
      const behavior = config.CacheBehaviors.find((candidate) => candidate.PathPattern === pattern);
      expect(behavior, pattern).toMatchObject({
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
        OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
      });
      expect(behavior?.TrustedKeyGroups).toBeUndefined();
      // The API's own security headers (HSTS among them), not the files' CSP.
      expect(JSON.stringify(behavior?.ResponseHeadersPolicyId)).toContain('ConsoleApiHeaders');
      const origin = originOf(config, behavior);
      expect(origin?.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
      const domain = JSON.stringify(origin?.DomainName);
      expect(domain).toContain(`{"Ref":"${apiId}"}`);
      expect(domain).toContain('.execute-api.');
    }
    // Every path of every route but the operators' IAM-signed ones (signed for the API's own host)
    // is under a pattern, so the console's site (PUBLIC_API_URL) reaches all of it.
    const underPattern = (served: string) =>
      apiPathPatterns().some((pattern) => served.startsWith(pattern.replace(/\*$/, '')));
    for (const route of routes.filter((candidate) => candidate.auth !== 'iam'))
      for (const { path: served, id } of servedPaths(route)) expect(underPattern(served), id).toBe(true);
  });

  it('keeps /exports/* on the exports bucket, signed URLs only, and nothing else', () => {
    const [, config] = distribution();
    expect(config.CacheBehaviors.map((behavior) => behavior.PathPattern).sort()).toEqual(
      ['/exports/*', ...apiPathPatterns()].sort(),
    );
    const exportsBehavior = config.CacheBehaviors.find((behavior) => behavior.PathPattern === '/exports/*');
    expect(exportsBehavior?.TrustedKeyGroups).toBeDefined();
    const origin = originOf(config, exportsBehavior);
    expect(JSON.stringify(origin?.DomainName)).toContain('ExportsArchives');
  });

  it("the deployment's handler (aws-cdk-lib's) is the only function that is not ours, and cdk-nag is clean", () => {
    const handlers = new Set(
      entries('Custom::CDKBucketDeployment').map(
        ([, deployment]) =>
          (deployment.Properties.ServiceToken as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
      ),
    );
    expect(handlers.size).toBe(1);
    expect(nagViolations(assemblyDirectory)).toEqual([]);
  });
});

describe('where sign-in lands', () => {
  const withoutTenantAppUrl = (extra: Record<string, string> = {}) => {
    const { tenantAppUrl: _unused, ...context } = synthCheckContext();
    // Not bundled: only the template matters here.
    const { app, stack } = buildApp(
      new App({ context: { ...context, ...extra, 'aws:cdk:bundling-stacks': [] } }),
    );
    // The root stack and its nested stacks (the routes' functions) read as one template.
    return flattenedApp(stack, app.synth().directory);
  };

  it("without tenantAppUrl, every function's app URL and OAuth callback base are the distribution's domain", () => {
    const built = withoutTenantAppUrl();
    const [distributionId] = distribution(built);
    const domain = { 'Fn::GetAtt': [distributionId, 'DomainName'] };
    const environments = lambdaEnvironments(built);
    expect(environments.length).toBeGreaterThan(routes.length);
    for (const variables of environments) {
      expect(variables.TENANT_APP_URL).toEqual({ 'Fn::Join': ['', ['https://', domain, '/']] });
      expect(variables.PUBLIC_API_URL).toEqual({ 'Fn::Join': ['', ['https://', domain]] });
    }
  }, 120_000);

  it('with the console domain set, they are that domain, and the distribution answers on it', () => {
    const built = withoutTenantAppUrl({
      consoleDomainName: 'console.synth-check.test',
      consoleCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
    });
    const [, config] = distribution(built);
    expect(config.Aliases).toEqual(['console.synth-check.test']);
    for (const variables of lambdaEnvironments(built)) {
      expect(variables.TENANT_APP_URL).toBe('https://console.synth-check.test/');
      expect(variables.PUBLIC_API_URL).toBe('https://console.synth-check.test');
    }
  }, 120_000);

  it('an explicit tenantAppUrl wins, the OAuth callback still comes through the site', () => {
    const built = withoutTenantAppUrl({ tenantAppUrl: 'https://app.synth-check.test/' });
    const [distributionId] = distribution(built);
    for (const variables of lambdaEnvironments(built)) {
      expect(variables.TENANT_APP_URL).toBe('https://app.synth-check.test/');
      expect(JSON.stringify(variables.PUBLIC_API_URL)).toContain(distributionId);
    }
  }, 120_000);
});
