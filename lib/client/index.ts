/**
 * The typed client of the Stack Control Plane API (issue 39): what a tenant app (or a Dispatcher)
 * installs. openapi-fetch over the types openapi-typescript makes from docs/api/openapi.json
 * (`npm run openapi`), with:
 * - a bearer token (a session's `sessionToken`, or a Stack's Dispatcher credential);
 * - an Idempotency-Key made for each request that takes one (kept across its retries);
 * - retries with backoff on 429 and 503, waiting what Retry-After says when it says it;
 * - a network error retried only for an idempotent request (GET, PUT, DELETE, or one with an
 *   Idempotency-Key), so a POST that may have been applied is never sent twice;
 * - a refusal thrown as a `Refusal`: its code (a union of the API's codes), its words, its request id.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import { type RefusalCode, TAKES_IDEMPOTENCY_KEY } from './facts.ts';
import type { paths } from './schema.ts';

export type { RefusalCode } from './facts.ts';
export type { components, operations, paths } from './schema.ts';

/** A refused request: the API's code, its words, the request id to quote to support. */
export class Refusal extends Error {
  readonly status: number;
  readonly code: RefusalCode;
  readonly requestId: string | undefined;
  readonly field: string | undefined;
  readonly apiHint: string | undefined;
  /** The whole body: the extra fields some codes add (`availablePlans`, `retryAfterSeconds`...). */
  readonly body: Record<string, unknown>;
  constructor(
    status: number,
    body: {
      error: { code: string; message: string; requestId?: string; field?: string; apiHint?: string };
    } & Record<string, unknown>,
  ) {
    super(body.error.message);
    this.name = 'Refusal';
    this.status = status;
    this.code = body.error.code as RefusalCode;
    this.requestId = body.error.requestId;
    this.field = body.error.field;
    this.apiHint = body.error.apiHint;
    this.body = body;
  }
}

export interface ClientOptions {
  /** The API's base URL (`npm start` prints it; `http://localhost:3000` by default there). */
  baseUrl: string;
  /** The bearer token: a session's `sessionToken` or a Stack's Dispatcher credential (`scd_…`). */
  token?: string;
  /** How many times a request is sent again after a 429, a 503 or a network error (default 3). */
  retries?: number;
  /** The first backoff, doubled each time, when the answer names no Retry-After (default 250 ms). */
  backoffMs?: number;
  /** The longest wait before a retry (default 30 s). */
  maxWaitMs?: number;
  /** The fetch to use (the global one by default). */
  fetch?: typeof globalThis.fetch;
  /** How to wait (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /** How to make an Idempotency-Key (crypto.randomUUID by default). */
  idempotencyKey?: () => string;
}

export type ApiClient = Client<paths> & {
  /** Uses another bearer token from now on (after sign-in, or a credential rotation). */
  setToken: (token: string | undefined) => void;
};

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** A request's path in the document's terms: `/v1/stacks/{stackId}/plan-changes`. */
const takesIdempotencyKey = (method: string, schemaPath: string) =>
  TAKES_IDEMPOTENCY_KEY.includes(`${method.toUpperCase()} ${schemaPath}`);

/** How long a Retry-After header says to wait, in ms (seconds or an HTTP date), if it says. */
export const retryAfterMs = (header: string | null, now = Date.now()): number | undefined => {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

export const createClient = (options: ClientOptions): ApiClient => {
  let token = options.token;
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const makeKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const baseFetch = options.fetch ?? globalThis.fetch;

  /** Sends the request, and again (a fresh copy each time) while a retry is due and allowed. */
  const retryingFetch = async (request: Request): Promise<Response> => {
    const idempotent =
      IDEMPOTENT_METHODS.has(request.method.toUpperCase()) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt += 1) {
      const backoff = Math.min(maxWaitMs, backoffMs * 2 ** attempt);
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (error) {
        // The request may have reached the API: only an idempotent one is sent again.
        if (!idempotent || attempt >= retries) throw error;
        await sleep(backoff);
        continue;
      }
      if ((response.status !== 429 && response.status !== 503) || attempt >= retries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel();
      await sleep(Math.min(maxWaitMs, wait ?? backoff));
    }
  };

  const client = createFetchClient<paths>({ baseUrl: options.baseUrl, fetch: retryingFetch });
  client.use({
    onRequest: ({ request, schemaPath }) => {
      if (token && !request.headers.has('authorization'))
        request.headers.set('authorization', `Bearer ${token}`);
      if (takesIdempotencyKey(request.method, schemaPath) && !request.headers.has('idempotency-key'))
        request.headers.set('idempotency-key', makeKey());
      return request;
    },
    onResponse: async ({ response }) => {
      if (response.status < 400) return undefined;
      const body = (await response
        .clone()
        .json()
        .catch(() => undefined)) as ConstructorParameters<typeof Refusal>[1] | undefined;
      if (body && typeof body === 'object' && body.error && typeof body.error.code === 'string')
        throw new Refusal(response.status, body);
      return undefined;
    },
  });
  return Object.assign(client, {
    setToken: (next: string | undefined) => {
      token = next;
    },
  });
};
