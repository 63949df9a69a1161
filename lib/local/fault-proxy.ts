import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Dependency, FaultBoard, FaultName } from './faults.ts';
import { closeServer, listenOn } from './ports.ts';

/**
 * A fault proxy in front of one AWS stand-in: the local cloud points the handlers' standard
 * AWS_ENDPOINT_URL_* variable at it, so the SDK clients the handlers build (exactly as in Lambda)
 * reach the stand-in through it. It forwards every request unchanged (Host included, so presigned
 * URLs still verify) unless the fault board says the call fails; then it answers what the real
 * service answers in that case (DynamoDB's throttling and transaction conflicts, SES's rejection,
 * Step Functions' refusal, S3's SlowDown), holds the call without answering (a timeout), or lets
 * the stand-in apply it and then resets the connection (a workflow start applied, its answer lost).
 */

const target = (request: IncomingMessage): string => {
  const value = request.headers['x-amz-target'];
  return typeof value === 'string' ? value : '';
};

/** The operation of a request to the stand-in of `dependency` (undefined: never faulted). */
export const classify = (
  dependency: Exclude<Dependency, 'processor'>,
  request: IncomingMessage,
): string | undefined => {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://localhost');
  switch (dependency) {
    case 'table': {
      const [, operation] = target(request).split('.');
      return operation || undefined;
    }
    case 'queue': {
      const operation = target(request).split('.')[1];
      if (operation === 'ReceiveMessage') return 'receive';
      if (operation === 'DeleteMessage' || operation === 'DeleteMessageBatch') return 'delete';
      return undefined;
    }
    case 'mail':
      return method === 'POST' && url.pathname === '/v2/email/outbound-emails' ? 'send' : undefined;
    case 'workflow':
      return target(request).endsWith('.StartExecution') ? 'start' : undefined;
    case 'storage':
      return method === 'PUT' && url.searchParams.has('uploadId') && url.searchParams.has('partNumber')
        ? 'upload_part'
        : undefined;
  }
};

/** An AWS JSON error: its type, named in its service's namespace, and its message (and any more fields). */
const awsError = (
  response: ServerResponse,
  status: number,
  [namespace, type]: [string, string],
  message: string,
  more: Record<string, unknown> = {},
) =>
  response
    .writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-query-error': `${type};Sender`,
    })
    .end(JSON.stringify({ __type: `${namespace}#${type}`, message, ...more }));

/** Answers a fault as the real service would, or holds the call (a timeout). */
const answerFault = (
  dependency: Exclude<Dependency, 'processor'>,
  fault: FaultName,
  body: string,
  response: ServerResponse,
): void => {
  if (fault === 'timeout') return; // held until the caller gives up and closes the connection
  switch (dependency) {
    case 'table':
      if (fault === 'transaction-conflict') {
        let items = 1;
        try {
          items = (JSON.parse(body) as { TransactItems?: unknown[] }).TransactItems?.length ?? 1;
        } catch {
          // an unreadable body still gets one reason
        }
        awsError(
          response,
          400,
          ['com.amazonaws.dynamodb.v20120810', 'TransactionCanceledException'],
          'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict] (injected)',
          {
            CancellationReasons: Array.from({ length: items }, (_, i) =>
              i === 0
                ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }
                : { Code: 'None' },
            ),
          },
        );
        return;
      }
      awsError(
        response,
        400,
        ['com.amazonaws.dynamodb.v20120810', 'ProvisionedThroughputExceededException'],
        'The level of configured provisioned throughput for the table was exceeded (injected).',
      );
      return;
    case 'queue':
      awsError(
        response,
        500,
        ['com.amazonaws.sqs', 'InternalError'],
        'We encountered an internal error. Please try again (injected).',
      );
      return;
    case 'mail':
      response
        .writeHead(400, { 'content-type': 'application/json', 'x-amzn-errortype': 'MessageRejected' })
        .end(JSON.stringify({ message: 'Email address is not verified (injected).' }));
      return;
    case 'workflow':
      awsError(
        response,
        400,
        ['com.amazonaws.swf.service.model', 'ExecutionLimitExceeded'],
        'The maximum number of running executions has been reached (injected).',
      );
      return;
    case 'storage':
      response
        .writeHead(503, { 'content-type': 'application/xml' })
        .end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate (injected).</Message></Error>',
        );
      return;
  }
};

export interface FaultProxy {
  /** The proxy's origin, e.g. http://127.0.0.1:40123. */
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts a fault proxy for `dependency` in front of the stand-in at `upstream`. */
export const startFaultProxy = async (
  dependency: Exclude<Dependency, 'processor'>,
  upstream: string,
  board: FaultBoard,
): Promise<FaultProxy> => {
  const to = new URL(upstream);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = classify(dependency, request);
      const fault = operation ? board.draw(dependency, operation) : undefined;
      // "Applied, answer lost": the stand-in applies the call, then the connection is reset.
      const lost = fault === 'applied-answer-lost';
      if (fault && !lost) {
        answerFault(dependency, fault, body.toString('utf8'), response);
        return;
      }
      const forward = httpRequest(
        {
          hostname: to.hostname,
          port: to.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          if (lost) {
            answer.resume();
            answer.on('end', () => response.destroy());
            return;
          }
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => {
        if (!response.headersSent) response.writeHead(502).end();
        else response.destroy();
      });
      forward.end(body);
    });
  });
  const port = await listenOn(server, 0, '127.0.0.1');
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => closeServer(server) };
};
