import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';

let client: SQSClient | undefined;
const sqs = () => {
  client ??= new SQSClient({});
  return client;
};

const queueUrl = (name = 'PROCESSOR_EVENTS_QUEUE_URL'): string => {
  const url = process.env[name];
  if (!url) throw new Error(`${name} is not configured`);
  return url;
};

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
      ? [{ body: message.Body, receiptHandle: message.ReceiptHandle }]
      : [],
  );
};

/** Removes an event from the queue: only once its effect is stored. */
export const deleteProcessorEvent = async (receiptHandle: string): Promise<void> => {
  await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle }));
};

/** Messages waiting in a queue (approximate, as SQS reports it). */
export const queueDepth = async (
  name: 'PROCESSOR_EVENTS_QUEUE_URL' | 'PROCESSOR_EVENTS_DLQ_URL',
): Promise<number> => {
  const { Attributes } = await sqs().send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl(name),
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
};
