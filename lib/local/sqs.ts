import { createServer, type Server } from 'node:http';
import { createRequestHandler } from 'local-aws-sqs';
import { listenOn } from './ports.ts';
import { standInQueueCounts } from './sqs-counts.ts';

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

/** The SQS stand-in on 127.0.0.1:`port`, answering short polls as SQS does. */
export const startSqsStandIn = async (port: number, region: string): Promise<Server> => {
  const { requestHandler, service } = createRequestHandler({ port, hostname: '127.0.0.1', region });
  const server = createServer((request, response) => {
    const first = service.Queues[0];
    if (first) answerShortPollsAtOnce(first);
    void requestHandler(request, response);
  });
  await listenOn(server, port, '127.0.0.1');
  return server;
};
