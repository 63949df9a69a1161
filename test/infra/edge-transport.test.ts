import { describe, expect, it } from 'vitest';
import { EDGE_COOKIE_SCHEME, findSessionToken, SESSION_COOKIE } from '#http/session-token.ts';
import { STRICT_TRANSPORT_SECURITY } from '../../lib/console-headers.ts';
import { apiPathPatterns } from '../../lib/infra/constructs/console.ts';
import {
  AUTHORIZER_CACHE_SECONDS,
  AUTHORIZER_IDENTITY_SOURCE,
  EDGE_SESSION_FUNCTION_CODE,
} from '../../lib/infra/edge-session.ts';
import { REFERENCE_INDEX_FUNCTION_CODE, REFERENCE_PATH } from '../../lib/reference-page.ts';
import { synthesizedStack } from '../support/synthesized-stack.ts';

/**
 * Issue 22, item 8: HSTS and the security headers on every behaviour of the site; the session
 * authorizer keyed on one identity source (anonymous requests never reach it), caching its answer
 * a short time, with the browser's cookie passed on by the site's viewer-request function; X-Ray
 * active tracing on every function.
 */

const { template } = synthesizedStack();

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = () => Object.entries(template.toJSON().Resources as Record<string, Resource>);
const refId = (value: unknown): string | undefined =>
  (value as { Ref?: string; 'Fn::GetAtt'?: string[] } | undefined)?.Ref ??
  (value as { 'Fn::GetAtt'?: string[] } | undefined)?.['Fn::GetAtt']?.[0];

interface Behavior {
  PathPattern?: string;
  ResponseHeadersPolicyId?: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}
const distributionConfig = () => {
  const found = resources().filter(([, r]) => r.Type === 'AWS::CloudFront::Distribution');
  expect(found).toHaveLength(1);
  return (
    (found[0] as [string, Resource])[1].Properties as {
      DistributionConfig: { DefaultCacheBehavior: Behavior; CacheBehaviors: Behavior[] };
    }
  ).DistributionConfig;
};

/** The edge function as CloudFront runs it: `handler(event)` on a viewer request. */
type EdgeRequest = {
  headers: Record<string, { value: string }>;
  cookies: Record<string, { value: string }>;
};
const runEdge = (request: EdgeRequest): EdgeRequest =>
  (new Function(`${EDGE_SESSION_FUNCTION_CODE}\nreturn handler;`)() as (e: unknown) => EdgeRequest)({
    request,
  });

describe('HSTS and the security headers', () => {
  it('every behaviour of the distribution has a response headers policy with HSTS (two years, subdomains, overriding the origin)', () => {
    const config = distributionConfig();
    const behaviors = [config.DefaultCacheBehavior, ...config.CacheBehaviors];
    // The console's files, the API reference, the API's patterns and the export downloads.
    expect(behaviors.map((b) => b.PathPattern ?? 'default').sort()).toEqual(
      ['default', `${REFERENCE_PATH}*`, '/exports/*', ...apiPathPatterns()].sort(),
    );
    const policies = new Map(
      resources().filter(([, r]) => r.Type === 'AWS::CloudFront::ResponseHeadersPolicy'),
    );
    for (const behavior of behaviors) {
      const policy = policies.get(refId(behavior.ResponseHeadersPolicyId) ?? '');
      expect(policy, `${behavior.PathPattern ?? 'default'} has a headers policy of ours`).toBeDefined();
      const security = (
        (policy as Resource).Properties.ResponseHeadersPolicyConfig as {
          SecurityHeadersConfig: Record<string, unknown>;
        }
      ).SecurityHeadersConfig;
      expect(security.StrictTransportSecurity).toEqual({
        AccessControlMaxAgeSec: STRICT_TRANSPORT_SECURITY.maxAgeSeconds,
        IncludeSubdomains: true,
        Override: true,
      });
      expect(security.ContentTypeOptions).toEqual({ Override: true });
      expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
      expect(security.ContentSecurityPolicy).toMatchObject({ Override: true });
      expect(security.ReferrerPolicy).toMatchObject({ Override: true });
    }
  });
});

describe('the session authorizer', () => {
  it('has one identity source, Authorization, and caches its answer for a short time', () => {
    const authorizers = resources().filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]?.[1].Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      IdentitySource: [AUTHORIZER_IDENTITY_SOURCE],
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_SECONDS,
    });
    expect(AUTHORIZER_IDENTITY_SOURCE).toBe('$request.header.Authorization');
    expect(AUTHORIZER_CACHE_SECONDS).toBeGreaterThan(0);
    expect(AUTHORIZER_CACHE_SECONDS).toBeLessThanOrEqual(60);
  });

  it("every API behaviour of the site runs the session-header function on the viewer's request; the downloads and the files do not", () => {
    const config = distributionConfig();
    // The other function is the API reference page's (test/infra/console-hosting.test.ts).
    const functions = resources().filter(
      ([, r]) =>
        r.Type === 'AWS::CloudFront::Function' && r.Properties.FunctionCode !== REFERENCE_INDEX_FUNCTION_CODE,
    );
    expect(functions).toHaveLength(1);
    const [functionId, fn] = functions[0] as [string, Resource];
    expect(fn.Properties).toMatchObject({
      FunctionCode: EDGE_SESSION_FUNCTION_CODE,
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      AutoPublish: true,
    });
    for (const behavior of config.CacheBehaviors) {
      const associated = (behavior.FunctionAssociations ?? []).map((a) => [
        a.EventType,
        refId(a.FunctionARN),
      ]);
      if (apiPathPatterns().includes(behavior.PathPattern ?? ''))
        expect(associated, behavior.PathPattern).toEqual([['viewer-request', functionId]]);
      else if (behavior.PathPattern !== `${REFERENCE_PATH}*`)
        expect(associated, behavior.PathPattern).toEqual([]);
    }
  });

  it('the function passes the session cookie on under the SessionCookie scheme, which the authorizer reads as the cookie', () => {
    const passed = runEdge({
      headers: {},
      cookies: { [SESSION_COOKIE]: { value: 'tok123' }, other: { value: 'x' } },
    });
    expect(passed.headers.authorization).toEqual({ value: `${EDGE_COOKIE_SCHEME} tok123` });
    // The authorizer's reading: the cookie's token, with the cookie's rules (same-origin writes).
    expect(findSessionToken({ authorization: passed.headers.authorization?.value }, [])).toEqual({
      token: 'tok123',
      via: 'cookie',
    });
  });

  it('a bearer header is left as it is (it wins over the cookie), and a request with neither gets no Authorization', () => {
    const bearer = runEdge({
      headers: { authorization: { value: 'Bearer scd_abc' } },
      cookies: { [SESSION_COOKIE]: { value: 'tok123' } },
    });
    expect(bearer.headers.authorization).toEqual({ value: 'Bearer scd_abc' });
    expect(findSessionToken({ authorization: 'Bearer scd_abc' }, [])).toEqual({
      token: 'scd_abc',
      via: 'bearer',
    });
    // No identity source: API Gateway answers 401 without running the authorizer.
    expect(
      runEdge({ headers: {}, cookies: { other: { value: 'x' } } }).headers.authorization,
    ).toBeUndefined();
    expect(
      runEdge({ headers: {}, cookies: { [SESSION_COOKIE]: { value: '' } } }).headers.authorization,
    ).toBeUndefined();
  });
});

/** The functions of ours (with our service name), not CDK's deploy-time ones. */
const ourFunctions = () =>
  resources().filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' &&
      (r.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables
        ?.POWERTOOLS_SERVICE_NAME !== undefined,
  );

describe('tracing', () => {
  it('every Lambda function of ours traces actively with X-Ray, and may write its segments', () => {
    const functions = ourFunctions();
    expect(functions.length).toBeGreaterThan(50);
    const policies = resources().filter(([, r]) => r.Type === 'AWS::IAM::Policy');
    for (const [id, fn] of functions) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      const role = refId(fn.Properties.Role);
      const document = policies
        .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${role}"`))
        .map(([, p]) => JSON.stringify(p.Properties.PolicyDocument))
        .join();
      expect(document, id).toContain('xray:PutTraceSegments');
    }
  });
});

describe('logs', () => {
  it("every Lambda function of ours logs JSON, passes our lines on, and keeps Lambda's own lines from WARN only (no START/END/REPORT per invocation)", () => {
    const functions = ourFunctions();
    expect(functions.length).toBeGreaterThan(50);
    for (const [id, fn] of functions)
      expect(fn.Properties.LoggingConfig, id).toMatchObject({
        LogFormat: 'JSON',
        SystemLogLevel: 'WARN',
        ApplicationLogLevel: 'TRACE',
      });
  });
});
