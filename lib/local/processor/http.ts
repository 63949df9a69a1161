import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FaultBoard, FaultName } from '../faults.ts';
import { closeServer, listenOn } from '../ports.ts';
import { EMULATED_API_VERSION, errorBody, StripeApiError } from './errors.ts';
import { type FormObject, parseForm } from './form.ts';
import type { PageResult } from './pages.ts';
import type { IdempotentResponse } from './state.ts';

/**
 * The emulator's HTTP side: request parsing (Stripe's form encoding), the API key check,
 * idempotency keys, the request log, the optional latency, and the hosted pages outside /v1.
 */

export interface RecordedCall {
  method: string;
  path: string;
  params: FormObject;
  idempotencyKey: string | undefined;
  at: number;
}

/**
 * A fault a test puts on the processor's API, for the requests it matches (method, path, and the
 * start of the idempotency key; each optional), `times` times (default 1; Infinity until removed):
 * - `lose-answer`: the request is carried out (and its answer stored under its key, as the
 *   processor does), then the connection is dropped: the caller never learns the outcome;
 * - `unavailable`: answered 503 and not carried out (nothing stored under the key);
 * - `refuse`: answered 400 and not carried out;
 * - `error-stored`: answered 500 and not carried out, and that answer is stored under its key, so
 *   every later request with the key gets it again (the processor keeps the first answer of a key,
 *   errors included, for 24 hours);
 * - `none`: carried out and answered as usual (only `onHit` runs).
 * `onHit` runs once the request was handled and before its answer goes (to arm the next fault, or
 * to change the state between a read and what follows it). `before` is awaited before the request
 * is handled: a test changes our own stored state there while the caller waits for this answer
 * (another request's write landing between the caller's read and its own write).
 */
export interface ProcessorFault {
  method?: string;
  path?: string;
  keyPrefix?: string;
  kind: 'lose-answer' | 'unavailable' | 'refuse' | 'error-stored' | 'none';
  times?: number;
  onHit?: () => void;
  before?: () => Promise<void>;
}

/** What the HTTP side needs of the emulator. */
export interface HttpHost {
  /** Bills what came due; run before every request. */
  tick(): void;
  /** The tick before an API read (skipped when nothing can have come due). */
  tickBeforeRead(): void;
  route(method: string, pathname: string, params: FormObject): unknown;
  page(method: string, pathname: string, form: FormObject): PageResult;
  idempotency(): Record<string, IdempotentResponse>;
  nowSeconds(): number;
  save(): void;
  /** Writes what changed to the state file now: called before answering, so no answered write is lost. */
  saveBeforeAnswer(): void;
}

/** The operation a processor API request is, as the fault board names it (lib/local/faults.ts). */
export const processorOperation = (method: string, pathname: string): string => {
  const [resource, id] = pathname.split('/').filter(Boolean).slice(1);
  if (resource === 'checkout' && id === 'sessions' && method === 'POST') return 'create_checkout_session';
  if (resource === 'billing_portal') return 'portal_sessions';
  if (resource === 'subscriptions') {
    if (method === 'GET') return id ? 'read_subscription' : 'list_subscriptions';
    return 'update_items';
  }
  if (resource === 'subscription_items') return 'update_items';
  if (resource === 'invoices' && id === 'create_preview') return 'previews';
  if (resource === 'invoices' || resource === 'invoice_payments' || resource === 'invoiceitems')
    return 'invoices';
  if (resource === 'refunds' || resource === 'payment_intents') return 'refunds';
  return 'other';
};

export class HttpFront {
  /** Every API request received, in order (in memory only). */
  readonly calls: RecordedCall[] = [];
  /** Delay before every API answer (0 by default). */
  latencyMs = 0;
  /** Faults tests put on the API (the first that matches a request hits it). */
  faults: ProcessorFault[] = [];
  /** Requests received and not answered yet (a test waits for 0 before it reads what they did). */
  inFlight = 0;
  url = '';
  /** The local cloud's fault board (faults on demand, `/_local/faults`); none in plain tests. */
  board: FaultBoard | undefined;
  private readonly host: HttpHost;
  private server: Server | undefined;

  constructor(host: HttpHost) {
    this.host = host;
  }

  async start(port = 0): Promise<string> {
    const server = createServer((request, response) => {
      this.inFlight++;
      this.handle(request, response)
        .catch((error: unknown) => {
          if (!response.headersSent) sendError(response, error);
        })
        .finally(() => {
          this.inFlight--;
        });
    });
    this.server = server;
    this.url = `http://127.0.0.1:${await listenOn(server, port, '127.0.0.1')}`;
    return this.url;
  }

  async stop(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    if (method === 'GET' && url.pathname.startsWith('/v1/')) this.host.tickBeforeRead();
    else this.host.tick();
    if (url.pathname.startsWith('/v1/')) {
      await this.handleApi(request, response, method, url, body);
      return;
    }
    const page = this.host.page(method, url.pathname, parseForm(body));
    this.host.saveBeforeAnswer();
    if (page.redirect) {
      response.writeHead(303, { location: page.redirect }).end();
      return;
    }
    response.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' }).end(page.html);
  }

  private async handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    url: URL,
    body: string,
  ): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    if (!/^Bearer sk_test_\w+/.test(authorization)) {
      throw new StripeApiError(401, 'Invalid API Key provided. Use a test secret key (sk_test_...).', {
        code: 'api_key_invalid',
      });
    }
    const params = method === 'GET' || method === 'DELETE' ? parseForm(url.search.slice(1)) : parseForm(body);
    const idempotencyKey = request.headers['idempotency-key'];
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    this.calls.push({
      method,
      path: url.pathname,
      params,
      idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      at: this.host.nowSeconds(),
    });
    const drawn = this.board?.draw('processor', processorOperation(method, url.pathname));
    if (drawn && drawn !== 'applied-answer-lost') {
      answerBoardFault(drawn, request, response);
      return;
    }
    const fingerprint = `${method} ${url.pathname} ${method === 'POST' ? body : ''}`;
    const stored = this.host.idempotency();
    const key = typeof idempotencyKey === 'string' ? idempotencyKey : undefined;
    const listed = this.faults.find(
      (f) =>
        (f.method === undefined || f.method === method) &&
        (f.path === undefined || f.path === url.pathname) &&
        (f.keyPrefix === undefined || key?.startsWith(f.keyPrefix)),
    );
    // The board's "applied, answer lost" is the listed lose-answer fault, once.
    const fault: ProcessorFault | undefined = drawn ? { kind: 'lose-answer' } : listed;
    if (fault && fault === listed) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
      await fault.before?.();
      if (fault.kind === 'unavailable' || fault.kind === 'refuse' || fault.kind === 'error-stored') {
        const error =
          fault.kind === 'refuse'
            ? new StripeApiError(400, 'Refused by a test fault.', { type: 'invalid_request_error' })
            : new StripeApiError(fault.kind === 'unavailable' ? 503 : 500, 'Failed by a test fault.', {
                type: 'api_error',
              });
        const text = JSON.stringify(errorBody(error));
        if (fault.kind === 'error-stored' && method === 'POST' && key && !stored[key])
          stored[key] = { fingerprint, status: error.status, body: text };
        fault.onHit?.();
        response.writeHead(error.status, { 'content-type': 'application/json' }).end(text);
        return;
      }
    }
    if (method === 'POST' && typeof idempotencyKey === 'string') {
      const previous = stored[idempotencyKey];
      if (previous) {
        if (previous.fingerprint !== fingerprint) {
          throw new StripeApiError(
            400,
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            { type: 'idempotency_error' },
          );
        }
        fault?.onHit?.();
        if (fault?.kind === 'lose-answer') {
          response.socket?.destroy();
          return;
        }
        response
          .writeHead(previous.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' })
          .end(previous.body);
        return;
      }
    }
    let status = 200;
    let result: unknown;
    try {
      result = this.host.route(method, url.pathname, params);
    } catch (error) {
      if (!(error instanceof StripeApiError) || error.status >= 500) throw error;
      status = error.status;
      result = errorBody(error);
    }
    const text = JSON.stringify(result);
    if (method === 'POST' && typeof idempotencyKey === 'string')
      stored[idempotencyKey] = { fingerprint, status, body: text };
    // Kept before it is answered: a process killed right after answering has it on disk. A read
    // writes only what its tick changed.
    if (method !== 'GET') this.host.save();
    this.host.saveBeforeAnswer();
    fault?.onHit?.();
    if (fault?.kind === 'lose-answer') {
      response.socket?.destroy();
      return;
    }
    response
      .writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(7).toString('hex')}`,
        'stripe-version': EMULATED_API_VERSION,
      })
      .end(text);
  }
}

/**
 * A board fault that is not carried out: 500 and 429 answered as Stripe does (429 with or without
 * Retry-After), a reset connection, or a call held unanswered until the caller gives up (past its
 * deadline; the processor did nothing).
 */
const answerBoardFault = (fault: FaultName, request: IncomingMessage, response: ServerResponse): void => {
  if (fault === 'timeout') {
    request.socket.setTimeout(0);
    return;
  }
  if (fault === 'reset') {
    response.socket?.destroy();
    return;
  }
  const rateLimited = fault === '429' || fault === '429-retry-after';
  const error = rateLimited
    ? new StripeApiError(429, 'Too many requests hit the API too quickly (injected).', {
        type: 'invalid_request_error',
        code: 'rate_limit',
      })
    : new StripeApiError(500, 'An unknown error occurred (injected).', { type: 'api_error' });
  response
    .writeHead(error.status, {
      'content-type': 'application/json',
      ...(fault === '429-retry-after' ? { 'retry-after': '1' } : {}),
    })
    .end(JSON.stringify(errorBody(error)));
};

const sendError = (response: ServerResponse, error: unknown): void => {
  const apiError =
    error instanceof StripeApiError
      ? error
      : new StripeApiError(500, `Internal emulator error: ${(error as Error).message}`, {
          type: 'api_error',
        });
  response
    .writeHead(apiError.status, { 'content-type': 'application/json' })
    .end(JSON.stringify(errorBody(apiError)));
};
