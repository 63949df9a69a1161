import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as v from 'valibot';
import { Refusal } from '#core/refusal.ts';
import { tryAgain } from '#core/refusals/common.ts';
import { refuse } from '#core/refusals/index.ts';
import { requestLineKept, sampleRateOf } from '#core/request-log.ts';
import type { Role } from '#core/sessions.ts';
import { clock } from '#ports/clock.ts';
import { config, DEFAULTS } from '#ports/config.ts';
import { logger } from '#ports/logger.ts';
import { recordUnhandledError } from '#ports/metrics.ts';
import { tableFaultOf } from '#store/client.ts';
import { errorBody, errorHeaders } from './errors.ts';
import type { AuthorizerContext, DispatcherPrincipal, Principal, SessionRejection } from './principal.ts';
import { statusOf } from './refusal-status.ts';
import { issueRefusal } from './validation.ts';

/** Largest request body accepted, in bytes (after base64 decoding). */
export const MAX_BODY_BYTES = 16 * 1024;

export type ApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & {
    authorizer?: { lambda?: AuthorizerContext };
  };
};
export type ApiResult = APIGatewayProxyStructuredResultV2;

type BodySchema = v.GenericSchema<unknown, unknown>;

export interface HttpRequest<TBody, TAuth> {
  body: TBody;
  /** The exact bytes received (base64 bodies decoded), for routes with `rawBody`. */
  rawBody: Buffer;
  principal: TAuth;
  pathParameters: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  requestId: string;
  now: Date;
  event: ApiEvent;
}

export interface HttpResult {
  status: number;
  body?: unknown;
  /** A body sent as is (e.g. JSON Lines), with its own content-type header; instead of `body`. */
  text?: string;
  headers?: Record<string, string>;
  cookies?: string[];
}

interface Options<TSchema extends BodySchema | undefined, TAuth extends AuthKind> {
  /**
   * `session`: needs a live session (401 otherwise). `dispatcher`: needs a Stack's Dispatcher
   * credential (401 otherwise; a session never reaches these routes, nor a credential the tenant
   * routes). `none`: public (sign-in, processor webhooks).
   */
  auth: TAuth;
  /** Needs this role (403 `admin_required` otherwise). */
  role?: Role;
  /** valibot schema of the JSON body; without one, a body must be absent or `{}`. */
  body?: TSchema;
  /** Hand the handler the raw bytes instead (signed payloads must be verified as received). */
  rawBody?: { maxBytes: number };
  /** A larger JSON body than MAX_BODY_BYTES (a Credential's auth file rides in one). */
  maxBodyBytes?: number;
}

const emptyBody = v.strictObject({});

type AuthKind = 'session' | 'dispatcher' | 'none';

/** Why the authorizer let a request through without a session, as its 401. */
const rejected = (rejection: SessionRejection): Refusal =>
  rejection === 'missing_session' ? refuse(rejection, { dispatcher: false }) : refuse(rejection);

const authenticate = (event: ApiEvent): Principal => {
  const context = event.requestContext.authorizer?.lambda;
  if (!context) throw refuse('missing_session', { dispatcher: false });
  if (!context.authenticated) throw rejected(context.rejection);
  if (context.kind === 'dispatcher') throw refuse('missing_session', { dispatcher: true });
  const { tenantId, userId, role, via } = context;
  return { tenantId, userId, role, via };
};

const authenticateDispatcher = (event: ApiEvent): DispatcherPrincipal => {
  const context = event.requestContext.authorizer?.lambda;
  if (context?.authenticated && context.kind === 'dispatcher')
    return { tenantId: context.tenantId, stackId: context.stackId };
  if (context && !context.authenticated && context.rejection === 'invalid_dispatcher_credential')
    throw rejected(context.rejection);
  throw refuse('dispatcher_credential_required');
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A browser sends the session cookie with any request, even one another site makes it send; an
 * unsafe request authenticated by the cookie must therefore come from the tenant app's origin.
 */
const assertSameOrigin = (event: ApiEvent): void => {
  if (SAFE_METHODS.has(event.requestContext.http.method.toUpperCase())) return;
  const origin = event.headers?.origin;
  if (origin !== config.tenantAppOrigin()) {
    throw refuse('origin_mismatch');
  }
};

const readRawBody = (event: ApiEvent, maxBytes: number): Buffer => {
  if (event.body === undefined || event.body === null || event.body === '') return Buffer.alloc(0);
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.byteLength > maxBytes) {
    throw refuse('body_too_large', { maxBytes });
  }
  return raw;
};

const readJsonBody = (event: ApiEvent, maxBytes: number): unknown => {
  const raw = readRawBody(event, maxBytes);
  if (raw.byteLength === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw refuse('invalid_json');
  }
};

/** `application/json`, any case, with or without parameters such as `; charset=utf-8`. */
export const isJsonContentType = (contentType: string | undefined): boolean =>
  contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';

/**
 * A JSON endpoint reads only JSON: a body sent as anything else (a form, text, no type at all) is
 * refused with 415 before it is read, so nothing is written. A request without a body needs no type.
 */
const assertJsonContentType = (event: ApiEvent): void => {
  if (event.body === undefined || event.body === null || event.body === '') return;
  const contentType = Object.entries(event.headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1];
  if (isJsonContentType(contentType)) return;
  throw refuse('unsupported_media_type', {
    received: contentType ? `"${contentType.slice(0, 100)}"` : 'no Content-Type',
  });
};

const parseBody = (event: ApiEvent, schema: BodySchema | undefined, maxBytes: number): unknown => {
  assertJsonContentType(event);
  const json = readJsonBody(event, maxBytes);
  if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json))) {
    throw refuse('invalid_body', {}, { field: 'body' });
  }
  const effective = schema ?? emptyBody;
  const result = v.safeParse(effective, json ?? {});
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw issueRefusal(issue);
};

/**
 * What a failed request answers: a refusal as it is; a fault a retry clears (a table throttle or
 * transaction conflict, as functions/store reads it) 503 `temporarily_busy` with Retry-After, logged
 * as what it is; anything else 500 `internal_error`, logged `unhandled error` and counted
 * (`ApiUnhandledErrors`): only those are our defects.
 */
const shapeError = (error: unknown, event: ApiEvent): Refusal => {
  // A use case may answer the fault in its own words (a sign-in starts again): its cause says so.
  const fault = tableFaultOf(error instanceof Refusal ? error.cause : error);
  if (fault)
    logger.warn('retryable table fault: answered 503 temporarily_busy', { fault, route: event.routeKey });
  if (error instanceof Refusal) return error;
  if (fault) return tryAgain(fault);
  logger.error('unhandled error', { error: error ?? undefined });
  recordUnhandledError();
  return refuse('internal_error');
};

/** Request id on every response and log line; errors in the shape of errors.ts. */
const httpConventions = (): MiddlewareObj<ApiEvent, ApiResult, Error, Context> => {
  // Per invocation: several requests can be in flight in one process (the local server).
  const startedAt = new WeakMap<ApiEvent, number>();
  const requestIdOf = (event: ApiEvent) => event.requestContext.requestId;
  const finish = (event: ApiEvent, response: ApiResult) => {
    response.headers = { ...response.headers, 'x-request-id': requestIdOf(event) };
    // Errors, refusals of money operations and state changes always; routine lines sampled
    // (functions/core/request-log.ts). The id is named here too: locally many requests share one
    // logger, so appended keys can mix.
    const kept = requestLineKept({
      routeKey: event.routeKey,
      method: event.requestContext.http.method,
      status: response.statusCode ?? 200,
      sampleRate: sampleRateOf(config.requestLogSampleRate(), Number(DEFAULTS.REQUEST_LOG_SAMPLE_RATE)),
      draw: Math.random(),
    });
    if (kept)
      logger.info('request', {
        requestId: requestIdOf(event),
        method: event.requestContext.http.method,
        route: event.routeKey,
        status: response.statusCode,
        durationMs: Math.round(performance.now() - (startedAt.get(event) ?? performance.now())),
        kept,
      });
    logger.resetKeys();
  };
  return {
    before: (request) => {
      startedAt.set(request.event, performance.now());
      logger.appendKeys({ requestId: requestIdOf(request.event) });
    },
    after: (request) => {
      if (request.response) finish(request.event, request.response);
    },
    onError: (request) => {
      const requestId = requestIdOf(request.event);
      const shaped = shapeError(request.error, request.event);
      request.response = {
        statusCode: statusOf(shaped),
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...errorHeaders(shaped) },
        body: JSON.stringify(errorBody(shaped, requestId)),
      };
      finish(request.event, request.response);
    },
  };
};

/**
 * Builds an API Gateway (HTTP API, payload v2) handler: authenticate -> authorize the role ->
 * parse and validate the body -> run. Rejections happen before `run`, so nothing is written.
 */
export const httpHandler = <
  TSchema extends BodySchema | undefined = undefined,
  TAuth extends AuthKind = 'session',
>(
  options: Options<TSchema, TAuth>,
  run: (
    request: HttpRequest<
      TSchema extends BodySchema ? v.InferOutput<TSchema> : Record<string, never>,
      TAuth extends 'session' ? Principal : TAuth extends 'dispatcher' ? DispatcherPrincipal : undefined
    >,
  ) => Promise<HttpResult>,
) =>
  Object.assign(handlerOf(options, run), {
    /** What the route takes (auth, role, body schema, limits), read by lib/openapi/generate.ts. */
    contract: options as HandlerContract,
  });

/** A handler's declared contract: how lib/openapi/generate.ts documents its request. */
export interface HandlerContract {
  auth: AuthKind;
  role?: Role;
  body?: BodySchema;
  rawBody?: { maxBytes: number };
  maxBodyBytes?: number;
}

const handlerOf = <TSchema extends BodySchema | undefined, TAuth extends AuthKind>(
  options: Options<TSchema, TAuth>,
  // biome-ignore lint/suspicious/noExplicitAny: the typed entry point above checks `run`
  run: (request: HttpRequest<any, any>) => Promise<HttpResult>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpConventions())
    .handler(async (event) => {
      const principal = options.auth === 'session' ? authenticate(event) : undefined;
      const dispatcher = options.auth === 'dispatcher' ? authenticateDispatcher(event) : undefined;
      if (principal?.via === 'cookie') assertSameOrigin(event);
      if (principal && options.role === 'administrator' && principal.role !== 'administrator') {
        throw refuse('admin_required');
      }
      const rawBody = options.rawBody ? readRawBody(event, options.rawBody.maxBytes) : Buffer.alloc(0);
      const body = options.rawBody
        ? {}
        : parseBody(event, options.body, options.maxBodyBytes ?? MAX_BODY_BYTES);
      const result = await run({
        rawBody,
        // The generic parameters above guarantee these shapes; TypeScript cannot follow them here.
        body: body as never,
        principal: (dispatcher ?? principal) as never,
        pathParameters: event.pathParameters ?? {},
        query: event.queryStringParameters ?? {},
        headers: event.headers ?? {},
        requestId: event.requestContext.requestId,
        now: clock().now(),
        event,
      });
      return {
        statusCode: result.status,
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...result.headers },
        ...(result.cookies ? { cookies: result.cookies } : {}),
        ...(result.text !== undefined
          ? { body: result.text }
          : result.body === undefined
            ? {}
            : { body: JSON.stringify(result.body) }),
      };
    });
