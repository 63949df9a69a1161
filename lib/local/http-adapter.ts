import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  Context,
} from 'aws-lambda';
import type { AuthorizerContext } from '../../functions/http/principal.ts';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../../functions/ports/config.ts';
import { REPO_ROOT } from '../constants.ts';
import { AUTHORIZER_HANDLER, type HttpMethod, type Route, servedPaths } from '../routes.ts';

/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): matches a request against
 * the route table, runs the same Lambda authorizer, builds the same event, calls the same handler.
 */

export interface LocalRequest {
  method: string;
  /** Path and query string, e.g. `/v1/billing/plans?x=1`. */
  url: string;
  /** Header names in any case; repeated headers as arrays. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp?: string;
}

export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

type LambdaHandler<E, R> = (event: E, context: Context) => Promise<R>;
export type ApiHandler = LambdaHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;
export type AuthorizerHandler = LambdaHandler<
  APIGatewayRequestAuthorizerEventV2,
  { isAuthorized: boolean; context?: AuthorizerContext }
>;

export interface AdapterRoute {
  method: HttpMethod;
  path: string;
  auth: Route['auth'];
  handler: ApiHandler;
  /** The time the handler is given (`getRemainingTimeInMillis`); an API Lambda's 10 s unless set. */
  timeoutMs?: number;
}

interface CompiledRoute extends AdapterRoute {
  pattern: RegExp;
  parameterNames: string[];
}

const compile = (route: AdapterRoute): CompiledRoute => {
  const parameterNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const parameter = /^\{(\w+)\}$/.exec(segment);
      if (!parameter?.[1]) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      parameterNames.push(parameter[1]);
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}$`), parameterNames };
};

/**
 * Whether path `a` is more specific than path `b` (both match the request): at the first segment
 * where they differ, a literal beats a `{parameter}`, as in API Gateway's route selection.
 */
export const moreSpecific = (a: string, b: string): boolean => {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const leftParameter = left[index]?.startsWith('{') ?? false;
    const rightParameter = right[index]?.startsWith('{') ?? false;
    if (leftParameter !== rightParameter) return rightParameter;
  }
  return false;
};

/** Imports each route's handler module, as Lambda would load its bundle; one entry per path it answers at. */
export const loadRouteHandlers = async (routes: readonly Route[]): Promise<AdapterRoute[]> =>
  (
    await Promise.all(
      routes.map(async (route) => {
        const module = (await import(path.join(REPO_ROOT, route.handler))) as { handler: ApiHandler };
        return servedPaths(route).map(({ path: served }) => ({
          method: route.method,
          path: served,
          auth: route.auth,
          handler: module.handler,
        }));
      }),
    )
  ).flat();

export const loadAuthorizer = async (): Promise<AuthorizerHandler> =>
  ((await import(path.join(REPO_ROOT, AUTHORIZER_HANDLER))) as { handler: AuthorizerHandler }).handler;

const TEXT_CONTENT = /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript)|[^;]*\+json)/i;

const lambdaContext = (
  functionName: string,
  requestId: string,
  timeoutMs = API_FUNCTION_TIMEOUT_SECONDS * 1000,
): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => timeoutMs,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

const gatewayError = (status: number, message: string): LocalResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  cookies: [],
  body: Buffer.from(JSON.stringify({ message })),
});

/** API Gateway (HTTP API)'s payload limit; the handlers enforce their much smaller one themselves. */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** What API Gateway answers a request over its payload limit, without invoking anything. */
export const payloadTooLarge = (): LocalResponse => gatewayError(413, 'Request Entity Too Large');

/**
 * How much of an oversized body is drained (read and dropped) before its 413 is sent anyway: enough
 * for any real client's mistake, a bound for an endless one.
 */
export const OVERSIZED_DRAIN_BYTES = 10 * API_GATEWAY_MAX_BODY_BYTES;

/**
 * Reads a request's body as API Gateway takes it in: up to `maxBytes`. A larger body (announced by
 * Content-Length, or found while reading) resolves `undefined`, so the caller answers 413 without
 * running a route; but only once the client has sent it all (the rest is read and dropped, up to
 * `drainBytes`). Answering and closing while the client still writes made it fail its write (EPIPE
 * or a reset) before it read the 413.
 */
export const readRequestBody = (
  request: IncomingMessage,
  maxBytes = API_GATEWAY_MAX_BODY_BYTES,
  drainBytes = OVERSIZED_DRAIN_BYTES,
): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        chunks.length = 0;
        // An endless body: answered now (the client may then see its write fail).
        if (size > drainBytes) resolve(undefined);
      }
    });
    request.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * How many API requests the local gateway runs at once (authorizer and handler); the others wait
 * their turn. In the cloud every Lambda invocation has a CPU of its own, and its 10 s counts only
 * its own work; here every handler shares one process, so with 100 requests under way each one's
 * 10 s ran out waiting for the others, and answered 500 (`npm run test:load`). A request's time
 * starts when it is let in, as an invocation's starts when Lambda runs it. `/_local/` routes are
 * tools, not Lambdas (some call the API back): never held.
 */
export const LOCAL_CONCURRENT_INVOCATIONS = 8;

/** Lets at most `limit` callers in at once, the rest in their order of arrival. */
export class Turnstile {
  private inside = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside >= this.limit) await new Promise<void>((enter) => this.waiting.push(enter));
    else this.inside++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The place passes straight to the next in line (never counted free in between).
      if (next) next();
      else this.inside--;
    }
  }
}

export class LocalApiGateway {
  private readonly compiled: CompiledRoute[];
  private readonly authorizer: AuthorizerHandler;
  private readonly invocations: Turnstile;

  constructor(
    routes: readonly AdapterRoute[],
    authorizer: AuthorizerHandler,
    concurrentInvocations = LOCAL_CONCURRENT_INVOCATIONS,
  ) {
    this.compiled = routes.map(compile);
    this.authorizer = authorizer;
    this.invocations = new Turnstile(concurrentInvocations);
  }

  async dispatch(request: LocalRequest): Promise<LocalResponse> {
    if (request.body.length > API_GATEWAY_MAX_BODY_BYTES) return payloadTooLarge();
    const url = new URL(request.url, 'http://localhost');
    const method = request.method.toUpperCase();
    let match: { route: CompiledRoute; values: string[] } | undefined;
    for (const route of this.compiled) {
      const found = route.pattern.exec(url.pathname);
      // As API Gateway does: the most specific route wins, whatever the table's order.
      if (found && route.method === method && (!match || moreSpecific(route.path, match.route.path)))
        match = { route, values: found.slice(1) };
    }
    if (!match) return gatewayError(404, 'Not Found');
    // Operator routes are IAM-authorized in the cloud; there is no IAM here, so none gets through.
    if (match.route.auth === 'iam')
      return gatewayError(
        403,
        'Forbidden: this operator route takes IAM-signed requests in the cloud only. Locally, use the ops CLI: npm run ops -- refund --slug <slug> --email <address> [--requested-at <ISO time>].',
      );
    const { route: matched, values: found } = match;
    return matched.path.startsWith('/_local/')
      ? this.invoke(request, url, method, matched, found)
      : this.invocations.run(() => this.invoke(request, url, method, matched, found));
  }

  /** Runs the authorizer (unless the route is public) and the route's handler, as API Gateway does. */
  private async invoke(
    request: LocalRequest,
    url: URL,
    method: string,
    route: CompiledRoute,
    values: string[],
  ): Promise<LocalResponse> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || name.toLowerCase() === 'cookie') continue;
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
    }
    const cookieHeader = request.headers.cookie ?? request.headers.Cookie;
    const cookies = (Array.isArray(cookieHeader) ? cookieHeader.join(';') : (cookieHeader ?? ''))
      .split(';')
      .map((cookie) => cookie.trim())
      .filter(Boolean);
    const queryStringParameters: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      queryStringParameters[name] =
        queryStringParameters[name] === undefined ? value : `${queryStringParameters[name]},${value}`;
    }
    const pathParameters = Object.fromEntries(
      route.parameterNames.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]),
    );
    const requestId = randomUUID();
    const now = new Date();
    const routeKey = `${route.method} ${route.path}`;
    const requestContext: APIGatewayProxyEventV2['requestContext'] = {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    };
    const common = {
      version: '2.0' as const,
      routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      ...(cookies.length ? { cookies } : {}),
      headers,
      ...(url.search ? { queryStringParameters } : {}),
      ...(route.parameterNames.length ? { pathParameters } : {}),
    };

    let authorizerContext: AuthorizerContext | undefined;
    if (route.auth !== 'none') {
      try {
        const decision = await this.authorizer(
          {
            ...common,
            cookies,
            type: 'REQUEST',
            routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${route.method}${route.path}`,
            identitySource: [],
            requestContext,
          },
          lambdaContext('SessionAuthorizer', requestId),
        );
        if (!decision.isAuthorized) return gatewayError(403, 'Forbidden');
        authorizerContext = decision.context;
      } catch (error) {
        console.error('authorizer failed', error);
        return gatewayError(500, 'Internal Server Error');
      }
    }

    const isText = TEXT_CONTENT.test(headers['content-type'] ?? '');
    const event: APIGatewayProxyEventV2 = {
      ...common,
      requestContext: {
        ...requestContext,
        ...(authorizerContext ? { authorizer: { lambda: authorizerContext } } : {}),
      } as APIGatewayProxyEventV2['requestContext'],
      ...(request.body.length
        ? { body: isText ? request.body.toString('utf8') : request.body.toString('base64') }
        : {}),
      isBase64Encoded: request.body.length > 0 && !isText,
    };
    try {
      const result = await route.handler(event, lambdaContext(routeKey, requestId, route.timeoutMs));
      return {
        status: result.statusCode ?? 200,
        headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
        cookies: result.cookies ?? [],
        body: result.body
          ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
          : Buffer.alloc(0),
      };
    } catch (error) {
      console.error(`handler of ${routeKey} failed`, error);
      return gatewayError(500, 'Internal Server Error');
    }
  }
}
