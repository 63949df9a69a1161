import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { createRequestHandler } from 'local-aws-sqs';
import { standInQueueCounts } from '../local-data.ts';
import { listenOn } from './ports.ts';
import { KeptMessages } from './sqs-kept.ts';

type StandInQueue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];
type ReceiveParams = { WaitTimeSeconds?: number | string; MaxNumberOfMessages?: number | string };

/**
 * SQS answers a short poll (WaitTimeSeconds 0) at once, with whatever messages it finds. The
 * stand-in (local-aws-sqs) holds every receive that finds fewer messages than asked for until a
 * 40 ms timer fires, looking every 10 ms: an empty short poll takes 40 ms instead of a round trip,
 * and the sweep's drain ends with one. That delay is the stand-in's alone, so it is taken away
 * here: a short poll of a queue with nothing ready answers empty after one timer turn, and one with messages
 * ready asks for no more than are ready, so the stand-in answers on its first look (10 ms). Long
 * polls (WaitTimeSeconds > 0), and short polls while only delayed messages wait, are left as the
 * stand-in does them.
 */
const answerShortPollsAtOnce = (queue: StandInQueue): void => {
  const prototype = Object.getPrototypeOf(queue) as StandInQueue & { shortPollsAtOnce?: true };
  if (prototype.shortPollsAtOnce) return;
  const receive = prototype.receive;
  prototype.receive = async function (this: StandInQueue, params: ReceiveParams) {
    const wait = Number(params.WaitTimeSeconds ?? this.ReceiveMessageWaitTimeSeconds);
    if (wait > 0) return receive.call(this, params);
    // A message just sent is marked delayed until a zero-delay timer of the stand-in's fires:
    // one timer turn lets those fire, so a message whose send was answered is ready.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const counts = this.getAttributes([
      'ApproximateNumberOfMessages',
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateNumberOfMessagesDelayed',
    ]) as Record<string, string>;
    // Ready: waiting, as SQS would count it (the stand-in counts a received message twice).
    const ready = standInQueueCounts(counts).waiting;
    if (ready <= 0) {
      // Messages sent with a delay: the stand-in's own way (it hands them out when due).
      if (Number(counts.ApproximateNumberOfMessagesDelayed) > 0) return receive.call(this, params);
      return [];
    }
    const asked = Number(params.MaxNumberOfMessages ?? 1);
    return receive.call(this, { ...params, MaxNumberOfMessages: Math.min(asked, ready) });
  };
  prototype.shortPollsAtOnce = true;
};

/** The request's body, read whole, and a request the stand-in can read it from again. */
const readBody = async (
  request: IncomingMessage,
): Promise<{ body: Buffer; again: (body: Buffer) => IncomingMessage }> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return {
    body: Buffer.concat(chunks),
    again: (body) =>
      Object.assign(Readable.from([body]), {
        headers: request.headers,
        method: request.method,
        url: request.url,
      }) as unknown as IncomingMessage,
  };
};

const parsed = (body: Buffer | string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(body.toString());
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Two differences from SQS in how the stand-in counts receives, both in what the intake's retry
 * rule reads (`ApproximateReceiveCount`), mended here on the wire (JSON protocol, as the SDK speaks):
 * - SQS takes the system attributes wanted as `MessageSystemAttributeNames` (the SDK's name today);
 *   the stand-in reads only the older `AttributeNames`, so a receive naming only the new one gets
 *   the old one set as well.
 * - The stand-in counts a ChangeMessageVisibility as one more receive; SQS does not. The kept
 *   messages (sqs-kept.ts) count each message's changes, taken off the count the stand-in answers.
 */
const receiveCountsAsSqs = (kept: KeptMessages) => {
  return async (request: IncomingMessage, response: ServerResponse): Promise<IncomingMessage> => {
    const action = String(request.headers['x-amz-target'] ?? '').split('.')[1];
    if (action !== 'ReceiveMessage') return request;
    const { body, again } = await readBody(request);
    const params = parsed(body);
    if (!params) return again(body);
    if (params.MessageSystemAttributeNames && !params.AttributeNames)
      params.AttributeNames = params.MessageSystemAttributeNames;
    const end = response.end.bind(response) as (chunk?: unknown) => ServerResponse;
    response.end = ((chunk?: unknown) => {
      const answer = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? parsed(chunk) : undefined;
      const messages = answer?.Messages;
      if (!Array.isArray(messages)) return end(chunk);
      for (const message of messages as { MessageId?: string; Attributes?: Record<string, string> }[]) {
        if (!message.MessageId) continue;
        const changed = kept.changesOf(message.MessageId);
        const counted = message.Attributes?.ApproximateReceiveCount;
        if (changed > 0 && counted !== undefined && message.Attributes)
          message.Attributes.ApproximateReceiveCount = String(Math.max(1, Number(counted) - changed));
      }
      return end(JSON.stringify(answer));
    }) as ServerResponse['end'];
    return again(Buffer.from(JSON.stringify(params)));
  };
};

/**
 * The SQS stand-in on 127.0.0.1:`port`, answering short polls as SQS does. With `stateFile`, its
 * messages are kept there and outlive the process (sqs-kept.ts); without, in memory only.
 */
export const startSqsStandIn = async (port: number, region: string, stateFile?: string): Promise<Server> => {
  const { requestHandler, service } = createRequestHandler({ port, hostname: '127.0.0.1', region });
  const kept = new KeptMessages(stateFile);
  const asSqs = receiveCountsAsSqs(kept);
  // Every queue is watched from its creation on, before any other request reaches it (its kept
  // messages put back first).
  const adoptQueues = () => {
    for (const queue of service.Queues) {
      answerShortPollsAtOnce(queue);
      kept.adopt(queue);
    }
  };
  const server = createServer((request, response) => {
    adoptQueues();
    asSqs(request, response)
      .then((adapted) => requestHandler(adapted, response))
      .then(adoptQueues)
      .catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  await listenOn(server, port, '127.0.0.1');
  return server;
};
