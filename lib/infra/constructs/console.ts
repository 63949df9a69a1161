import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  SecurityPolicyProtocol,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Policy } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import { Construct } from 'constructs';
import {
  API_SECURITY_HEADERS,
  CONSOLE_CACHE_CONTROL,
  CONSOLE_SECURITY_HEADERS,
  REFERENCE_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from '../../console-headers.ts';
import { REPO_ROOT } from '../../constants.ts';
import {
  REFERENCE_FILES,
  REFERENCE_INDEX_FUNCTION_CODE,
  REFERENCE_KEY_PREFIX,
  REFERENCE_PATH,
  referenceFileName,
} from '../../reference-page.ts';
import { type Route, routes, servedPaths } from '../../routes.ts';
import { EDGE_SESSION_FUNCTION_CODE } from '../edge-session.ts';
import { pinStateful } from '../stateful.ts';

/** The console's static files (index.html, the ES modules, the CSS), deployed as they are. */
export const CONSOLE_DIRECTORY = path.join(REPO_ROOT, 'lib', 'console');

interface PolicyJson {
  Statement?: { Effect?: string; Action?: string | string[]; Resource?: unknown }[];
}

/** The path pattern that sends the API's requests through the console's site. */
export const API_PATH_PATTERN = '/v1/*';

/**
 * Every path pattern the site sends to the API: API_PATH_PATTERN, and one per first segment of a
 * path outside it that a tenant or Dispatcher route answers at (the specification's own
 * Credential paths, `/credentials` and `/credentials/{name}`: `/credentials*`). The operators'
 * IAM-signed routes are signed for the API's own host and stay off the site.
 */
export const apiPathPatterns = (table: readonly Route[] = routes): string[] => [
  API_PATH_PATTERN,
  ...new Set(
    table
      .filter((route) => route.auth !== 'iam')
      .flatMap((route) => servedPaths(route).map(({ path: served }) => served))
      .filter((served) => !served.startsWith('/v1/'))
      .map((served) => `/${served.split('/')[1]}*`),
  ),
];

/**
 * The API reference page's files (lib/reference-page.ts, the ones `npm start` serves) in one folder
 * under the names the bucket keeps them at below `docs/`, for the deployment's asset: staged from
 * the repository's files at synth, into a folder named after their content (so a synth reuses it,
 * and a folder is never seen half written).
 */
export const stageReferencePage = (): string => {
  const files = Object.entries(REFERENCE_FILES).map(([served, { file }]) => ({
    name: referenceFileName(served),
    source: path.join(REPO_ROOT, file),
  }));
  const hash = createHash('sha256');
  for (const { name, source } of files) hash.update(name).update('\0').update(readFileSync(source));
  const staged = path.join(tmpdir(), `stack-control-plane-reference-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(staged)) return staged;
  const staging = mkdtempSync(`${staged}.`);
  for (const { name, source } of files) {
    mkdirSync(path.dirname(path.join(staging, name)), { recursive: true });
    copyFileSync(source, path.join(staging, name));
  }
  try {
    renameSync(staging, staged);
  } catch (error) {
    // Another synth staged it meanwhile: the same files.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(staged)) throw error;
  }
  return staged;
};

export interface ConsoleSiteProps {
  /** The console's own domain on the distribution, with its certificate (us-east-1). */
  consoleDomainName?: string | undefined;
  consoleCertificateArn?: string | undefined;
  /** Where the console's files are (tests may point elsewhere); default lib/console. */
  consoleDirectory?: string;
}

const referrerPolicy = Object.values(HeadersReferrerPolicy).find(
  (policy) => policy === CONSOLE_SECURITY_HEADERS['referrer-policy'],
);

/**
 * The tenant console's site (issue 15): one CloudFront distribution on one domain, so the session
 * cookie the API sets is first-party to the page that uses it.
 *
 * - default behaviour: a private bucket (no public access, TLS only, encrypted) holding
 *   lib/console/ (`/` and `/index.html` the page, `/console/<file>` its assets), read through
 *   origin access control, with the security headers of lib/console-headers.ts;
 * - `/docs*`: the API reference page (lib/reference-page.ts) from the same bucket, under `docs/`,
 *   with its own security headers;
 * - `/v1/*` and the specification's own paths (`/credentials*`; routeApi, apiPathPatterns): the
 *   HTTP API, uncached, every method, with the viewer's cookies, query strings and headers
 *   (except Host, which must be the API's own);
 * - `/exports/*`: added by ExportArchives (signed URLs only).
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly responseHeadersPolicy: ResponseHeadersPolicy;
  /** The API's and the export downloads' security headers (HSTS among them): every other behaviour. */
  readonly apiResponseHeadersPolicy: ResponseHeadersPolicy;
  /** The API reference page's (/docs): the console's, but Scalar's inline styles allowed. */
  readonly referenceResponseHeadersPolicy: ResponseHeadersPolicy;
  /** One origin access control for every bucket the distribution reads. */
  readonly originAccessControl: S3OriginAccessControl;
  /** `https://<console domain>`: the custom domain when given, else the distribution's. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps = {}) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    });
    pinStateful(this.bucket, 'consoleBucket', { keepsData: true });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "The bucket holds only the console's public static files, written only by the stack's deployment (CloudTrail).",
    });

    this.originAccessControl = new S3OriginAccessControl(this, 'OriginAccess', {
      signing: Signing.SIGV4_ALWAYS,
    });
    if (!referrerPolicy) throw new Error('the console referrer policy is not one CloudFront knows');
    const strictTransportSecurity = {
      accessControlMaxAge: Duration.seconds(STRICT_TRANSPORT_SECURITY.maxAgeSeconds),
      includeSubdomains: STRICT_TRANSPORT_SECURITY.includeSubdomains,
      override: true,
    };
    const securityHeaders = (id: string, comment: string, contentSecurityPolicy: string) =>
      new ResponseHeadersPolicy(this, id, {
        comment,
        securityHeadersBehavior: {
          contentSecurityPolicy: { contentSecurityPolicy, override: true },
          contentTypeOptions: { override: true },
          referrerPolicy: { referrerPolicy, override: true },
          // frame-ancestors 'none' says the same to browsers that read the CSP.
          frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
          strictTransportSecurity,
        },
      });
    this.responseHeadersPolicy = securityHeaders(
      'Headers',
      "The console's security headers (lib/console-headers.ts, the same as npm start's)",
      CONSOLE_SECURITY_HEADERS['content-security-policy'],
    );
    this.apiResponseHeadersPolicy = securityHeaders(
      'ApiHeaders',
      "The API's and export downloads' security headers (lib/console-headers.ts)",
      API_SECURITY_HEADERS['content-security-policy'],
    );
    this.referenceResponseHeadersPolicy = securityHeaders(
      'ReferenceHeaders',
      "The API reference page's security headers (lib/console-headers.ts, the same as npm start's)",
      REFERENCE_SECURITY_HEADERS['content-security-policy'],
    );

    const customDomain =
      props.consoleDomainName && props.consoleCertificateArn
        ? {
            domainNames: [props.consoleDomainName],
            certificate: Certificate.fromCertificateArn(
              this,
              'ConsoleCertificate',
              props.consoleCertificateArn,
            ),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {};
    const filesOrigin = S3BucketOrigin.withOriginAccessControl(this.bucket, {
      originAccessControl: this.originAccessControl,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment:
        "The console's site: its files, the API reference under /docs, the API under /v1/* (and /credentials*), export downloads under /exports/* (signed URLs only)",
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: filesOrigin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // The objects say `Cache-Control: no-cache`; the edge keeps them a second at most.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.responseHeadersPolicy,
      },
      priceClass: PriceClass.PRICE_CLASS_100,
      ...customDomain,
    });
    // Its domain is the console's (and the OAuth callback's) until a custom domain is set: never replaced.
    pinStateful(this.distribution, 'consoleDistribution', { keepsData: false });
    for (const [rule, reason] of [
      [
        'AwsSolutions-CFR1',
        'Tenants use the console and download exports from wherever they are; sign-in and signed URLs are the controls.',
      ],
      [
        'AwsSolutions-CFR2',
        'The site is static files, an API with its own authorizer and stage throttling, and signed downloads.',
      ],
      [
        'AwsSolutions-CFR3',
        'The API has its own access logs; downloads are audited where they are handed out (the download route logs each one).',
      ],
      ...(customDomain.certificate
        ? []
        : [
            [
              'AwsSolutions-CFR4',
              'Without the console domain set, the default CloudFront certificate is used until an operator sets it.',
            ],
          ]),
    ] as const)
      Validations.of(this.distribution).acknowledge({ id: rule, reason });
    // The custom domain only when the distribution answers on it (the name and its certificate).
    this.url = `https://${customDomain.certificate ? props.consoleDomainName : this.distribution.distributionDomainName}`;

    // The page at the root, its assets under console/ (the paths npm start serves them at).
    const files = Source.asset(props.consoleDirectory ?? CONSOLE_DIRECTORY);
    const cacheControl = [CacheControl.fromString(CONSOLE_CACHE_CONTROL)];
    const page = new BucketDeployment(this, 'DeployPage', {
      sources: [files],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: ['index.html'],
      // Pruning at the root would delete console/*; the page is the only file there.
      prune: false,
      cacheControl,
    });
    const assets = new BucketDeployment(this, 'DeployAssets', {
      sources: [files],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'console/',
      exclude: ['index.html'],
      prune: true,
      cacheControl,
    });
    // The API reference (/docs, issue 39): the files npm start serves (lib/reference-page.ts) under
    // docs/, with its own security headers (Scalar sets styles inline); /docs and /docs/ are its page.
    const reference = new BucketDeployment(this, 'DeployReference', {
      sources: [Source.asset(stageReferencePage())],
      destinationBucket: this.bucket,
      destinationKeyPrefix: REFERENCE_KEY_PREFIX,
      prune: true,
      cacheControl,
    });
    const referenceIndex = new EdgeFunction(this, 'ReferenceIndex', {
      functionName: `${Stack.of(this).stackName}-reference-index`,
      comment: 'Answers /docs and /docs/ with the API reference page (docs/index.html)',
      code: FunctionCode.fromInline(REFERENCE_INDEX_FUNCTION_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });
    this.distribution.addBehavior(`${REFERENCE_PATH}*`, filesOrigin, {
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.referenceResponseHeadersPolicy,
      functionAssociations: [{ function: referenceIndex, eventType: FunctionEventType.VIEWER_REQUEST }],
    });
    this.acknowledgeDeployment(page, assets, reference);
    new CfnOutput(scope, 'ConsoleDistributionDomain', { value: this.distribution.distributionDomainName });
    new CfnOutput(scope, 'ConsoleUrl', { value: `${this.url}/` });
  }

  /**
   * Sends `/v1/*` (and the specification's own paths, apiPathPatterns) to the HTTP API: same site
   * as the page, so its session cookie is first-party.
   */
  routeApi(api: HttpApi): void {
    const stack = Stack.of(api);
    const origin = new HttpOrigin(`${api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });
    // The session cookie passed on as `Authorization: SessionCookie <token>`: the authorizer's one
    // identity source (lib/infra/edge-session.ts).
    const sessionHeader = new EdgeFunction(this, 'SessionHeader', {
      // Account-wide: the stack's (the stage's) name in it, as every such name (issue 22, item 1).
      functionName: `${stack.stackName}-session-header`,
      comment: 'Passes the session cookie on to the API as its Authorization header (SessionCookie scheme)',
      code: FunctionCode.fromInline(EDGE_SESSION_FUNCTION_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });
    for (const pattern of apiPathPatterns())
      this.distribution.addBehavior(pattern, origin, {
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Cookies, query strings and every header but Host (API Gateway routes on its own host name).
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        // The API's bodies as it sent them (JSON, small).
        compress: false,
        responseHeadersPolicy: this.apiResponseHeadersPolicy,
        functionAssociations: [{ function: sessionHeader, eventType: FunctionEventType.VIEWER_REQUEST }],
      });
  }

  /**
   * cdk-nag's findings on the deployments' custom resource: one handler shared by both, written
   * and maintained in aws-cdk-lib, whose role copies the asset's objects into the console bucket.
   */
  private acknowledgeDeployment(...deployments: BucketDeployment[]): void {
    const stack = Stack.of(this);
    for (const deployment of deployments) {
      const role = deployment.handlerRole;
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "The AWS managed basic execution role only lets CDK's deployment handler write its own logs.",
      });
      // Its grants: read the asset bucket's objects, write and prune the console bucket's.
      const policy = role.node.tryFindChild('DefaultPolicy');
      const document = policy
        ? (stack.resolve((policy as Policy).document) as PolicyJson)
        : { Statement: [] };
      for (const statement of document.Statement ?? []) {
        if (statement.Effect !== 'Allow') continue;
        const wildcards = [
          ...[statement.Action ?? []].flat().map((action) => `Action::${action}`),
          ...[statement.Resource ?? []]
            .flat()
            .map((resource) => `Resource::${flattenCfnReference(resource)}`),
        ].filter((finding) => finding.includes('*'));
        for (const finding of wildcards)
          Validations.of(role).acknowledge({
            id: `AwsSolutions-IAM5[${finding}]`,
            reason:
              "CDK's BucketDeployment handler reads the deployment's asset and copies it into the console bucket (and prunes it): its grants are those two buckets' objects.",
          });
      }
      const handler = stack.node.children.find(
        (child) => child.node.id.startsWith('Custom::CDKBucketDeployment') && child instanceof LambdaFunction,
      );
      if (handler)
        Validations.of(handler).acknowledge({
          id: 'AwsSolutions-L1',
          reason: "The runtime of CDK's BucketDeployment handler is aws-cdk-lib's choice, updated with it.",
        });
    }
  }
}
