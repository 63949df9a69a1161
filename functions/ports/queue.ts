import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { config, type QueueVariable } from './config.ts';
import { recordDependencyFault } from './metrics.ts';
import { traced } from './tracer.ts';

let client: SQSClient | undefined;
const sqs = () => {
  if (!client) {
    client = traced(new SQSClient({}));
    // Every failed attempt of a queue call is counted (the SDK retries; the message stays queued).
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          recordDependencyFault('queue_call_failed');
          throw error;
        }
      },
      { step: 'deserialize', name: 'countQueueFaults' },
    );
  }
  return client;
};

const queueUrl = (name: QueueVariable = 'PROCESSOR_EVENTS_QUEUE_URL'): string => config.queueUrl(name);

/** Puts a verified processor event on the intake queue, exactly as received. */
export const enqueueProcessorEvent = async (
  event: { id: string; type: string },
  payload: string,
): Promise<void> => {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl(),
      MessageBody: payload,
      MessageAttributes: {
        eventId: { DataType: 'String', StringValue: event.id },
        eventType: { DataType: 'String', StringValue: event.type },
      },
    }),
  );
};

export interface QueuedEvent {
  body: string;
  receiptHandle: string;
  /** How many times the event has been received, this time included (1 the first time). */
  receives: number;
}

/** Up to ten queued events; each stays invisible to others while we work on it. */
export const receiveProcessorEvents = async (): Promise<QueuedEvent[]> => {
  const { Messages } = await sqs().send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl(),
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return (Messages ?? []).flatMap((message) =>
    message.Body !== undefined && message.ReceiptHandle
      ? [
          {
            body: message.Body,
            receiptHandle: message.ReceiptHandle,
            receives: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
          },
        ]
      : [],
  );
};

const visibilityTimeouts = new Map<string, Promise<number | undefined>>();
/** The intake queue's visibility timeout in seconds (read once per queue); undefined if unreadable. */
export const intakeVisibilityTimeoutSeconds = (): Promise<number | undefined> => {
  const url = queueUrl();
  let timeout = visibilityTimeouts.get(url);
  if (!timeout) {
    timeout = sqs()
      .send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] }))
      .then(({ Attributes }) => {
        const seconds = Number(Attributes?.VisibilityTimeout);
        return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
      })
      .catch(() => {
        // Read again next time.
        visibilityTimeouts.delete(url);
        return undefined;
      });
    visibilityTimeouts.set(url, timeout);
  }
  return timeout;
};

/** Makes a received event visible again after `seconds` (instead of the queue's visibility timeout). */
export const retryProcessorEventAfter = async (receiptHandle: string, seconds: number): Promise<void> => {
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl(),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: Math.max(0, Math.floor(seconds)),
    }),
  );
};

/** Removes an event from the queue: only once its effect is stored. */
export const deleteProcessorEvent = async (receiptHandle: string): Promise<void> => {
  await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle }));
};

/** Messages waiting in a queue (approximate, as SQS reports it). */
export const queueDepth = async (name: QueueVariable): Promise<number> => {
  const { Attributes } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl(name),
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
};

/** A queue's messages counted apart: waiting to be received, and received but not yet deleted. */
export interface QueueCounts {
  waiting: number;
  inFlight: number;
}

/** How a queue's attributes read as counts. */
export type QueueCountReader = (attributes: Record<string, string>) => QueueCounts;

/** SQS: ApproximateNumberOfMessages waits, ApproximateNumberOfMessagesNotVisible is in flight. */
export const sqsQueueCounts: QueueCountReader = (attributes) => ({
  waiting: Number(attributes.ApproximateNumberOfMessages ?? 0),
  inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
});

export interface QueueStatus extends QueueCounts {
  /** Messages waiting in the dead-letter queue (their ApproximateNumberOfMessages). */
  deadLettered: number;
}

const queueCounts = async (name: QueueVariable, read: QueueCountReader): Promise<QueueCounts> => {
  const { Attributes } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl(name),
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return read(Attributes ?? {});
};

/**
 * The processor event intake for operators: waiting, in flight and dead-lettered, counted apart.
 * `read` interprets the attributes (the local SQS stand-in needs its own reading).
 */
export const processorQueueStatus = async (read: QueueCountReader = sqsQueueCounts): Promise<QueueStatus> => {
  const [events, deadLetters] = await Promise.all([
    queueCounts('PROCESSOR_EVENTS_QUEUE_URL', read),
    queueCounts('PROCESSOR_EVENTS_DLQ_URL', read),
  ]);
  return { ...events, deadLettered: deadLetters.waiting };
};
