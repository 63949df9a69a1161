import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_CACHE_CONTROL,
  CONSOLE_CSP,
  CONSOLE_SECURITY_HEADERS,
  REFERENCE_SECURITY_HEADERS,
} from '../../lib/console-headers.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { API_PATH_PATTERN, apiPathPatterns, CONSOLE_DIRECTORY } from '../../lib/infra/constructs/console.ts';
import {
  REFERENCE_FILES,
  REFERENCE_INDEX_FUNCTION_CODE,
  REFERENCE_KEY_PREFIX,
  REFERENCE_PATH,
  referenceFileName,
} from '../../lib/reference-page.ts';
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

/** The folder of the asset a deployment copies (by its object key), as the assembly staged it. */
const stagedAsset = (key: string | undefined): string => {
  const manifest = JSON.parse(
    readFileSync(path.join(assemblyDirectory, 'StackControlPlane-synth-check.assets.json'), 'utf8'),
  ) as {
    files: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>;
  };
  const asset = Object.values(manifest.files).find((file) =>
    Object.values(file.destinations).some((destination) => destination.objectKey === key),
  );
  expect(asset, 'the deployed asset').toBeDefined();
  return path.join(assemblyDirectory, asset?.source.path ?? '');
};

const files = (directory: string) => readdirSync(directory, { recursive: true, encoding: 'utf8' }).sort();

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
    // The third deploys the API reference under docs/ (below).
    const deployments = entries('Custom::CDKBucketDeployment')
      .map(([, deployment]) => deployment.Properties)
      .filter((deployment) => deployment.DestinationBucketKeyPrefix !== REFERENCE_KEY_PREFIX);
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
    // Every file, in the folders of lib/console/ too (the screens' modules).
    const staged = files(stagedAsset(key));
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
    // Three policies: the files' (this one), the API reference's (below) and the API's and
    // downloads' (test/infra/edge-transport.test.ts).
    const policies = entries('AWS::CloudFront::ResponseHeadersPolicy');
    expect(policies).toHaveLength(3);
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
      [`${REFERENCE_PATH}*`, '/exports/*', ...apiPathPatterns()].sort(),
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

describe('the API reference on the site (/docs, issue 39)', () => {
  const referenceBehavior = () => {
    const [, config] = distribution();
    const behavior = config.CacheBehaviors.find(
      (candidate) => candidate.PathPattern === `${REFERENCE_PATH}*`,
    );
    expect(behavior, `${REFERENCE_PATH}*`).toBeDefined();
    return [config, behavior as Behavior] as const;
  };

  it('deploys under docs/ exactly the files npm start serves at /docs (lib/reference-page.ts), byte for byte', () => {
    const bucketId = consoleBucket();
    const deployments = entries('Custom::CDKBucketDeployment')
      .map(([, deployment]) => deployment.Properties)
      .filter((deployment) => deployment.DestinationBucketKeyPrefix === REFERENCE_KEY_PREFIX);
    expect(deployments).toHaveLength(1);
    const [deployment] = deployments;
    expect(deployment).toMatchObject({
      DestinationBucketName: { Ref: bucketId },
      Prune: true,
      SystemMetadata: { 'cache-control': CONSOLE_CACHE_CONTROL },
    });
    const directory = stagedAsset((deployment?.SourceObjectKeys as string[] | undefined)?.[0]);
    const served = Object.entries(REFERENCE_FILES);
    expect(files(directory)).toEqual(served.map(([at]) => referenceFileName(at)).sort());
    expect(files(directory)).toEqual(
      expect.arrayContaining(['index.html', 'reference.js', 'reference.css', 'scalar.js', 'openapi.json']),
    );
    for (const [at, { file }] of served)
      expect(
        readFileSync(path.join(directory, referenceFileName(at))).equals(
          readFileSync(path.join(REPO_ROOT, file)),
        ),
        at,
      ).toBe(true);
  });

  it('is read from the console bucket through origin access control, GET and HEAD, over HTTPS', () => {
    const [config, behavior] = referenceBehavior();
    expect(originOf(config, behavior)).toBe(originOf(config, config.DefaultCacheBehavior));
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
    });
    expect(behavior.TrustedKeyGroups).toBeUndefined();
  });

  it("answers with npm start's reference headers: a CSP that loads nothing from outside the site", () => {
    const [, behavior] = referenceBehavior();
    const [policyId, policy] = entries('AWS::CloudFront::ResponseHeadersPolicy').find(([id]) =>
      id.startsWith('ConsoleReferenceHeaders'),
    ) as [string, Resource];
    expect(behavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const csp = REFERENCE_SECURITY_HEADERS['content-security-policy'];
    expect(
      (policy.Properties.ResponseHeadersPolicyConfig as { SecurityHeadersConfig: unknown })
        .SecurityHeadersConfig,
    ).toMatchObject({
      ContentSecurityPolicy: { ContentSecurityPolicy: csp, Override: true },
      ContentTypeOptions: { Override: true },
      ReferrerPolicy: { ReferrerPolicy: REFERENCE_SECURITY_HEADERS['referrer-policy'], Override: true },
    });
    // Every source is the site itself, inline styles (Scalar's) or data: URLs; no host anywhere.
    const sources = csp.split(';').flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    for (const source of sources)
      expect(["'self'", "'none'", "'unsafe-inline'", 'data:'], source).toContain(source);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
  });

  it('answers /docs and /docs/ with the page (a viewer-request function), every other path as it is', () => {
    const [, behavior] = referenceBehavior();
    const [functionId, fn] = entries('AWS::CloudFront::Function').find(
      ([, candidate]) => candidate.Properties.FunctionCode === REFERENCE_INDEX_FUNCTION_CODE,
    ) as [string, Resource];
    expect(fn.Properties).toMatchObject({
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      AutoPublish: true,
    });
    expect(
      (behavior.FunctionAssociations as { EventType: string; FunctionARN: unknown }[]).map((association) => [
        association.EventType,
        association.FunctionARN,
      ]),
    ).toEqual([['viewer-request', { 'Fn::GetAtt': [functionId, 'FunctionARN'] }]]);
    const run = new Function(`${REFERENCE_INDEX_FUNCTION_CODE}\nreturn handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    for (const [uri, to] of [
      ['/docs', '/docs/index.html'],
      ['/docs/', '/docs/index.html'],
      ['/docs/scalar.js', '/docs/scalar.js'],
      ['/docs/openapi.json', '/docs/openapi.json'],
    ])
      expect(run({ request: { uri: uri as string } }).uri, uri).toBe(to);
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
