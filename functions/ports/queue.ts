import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

let client: SQSClient | undefined;

const queueUrl = (): string => {
  const url = process.env.PROCESSOR_EVENTS_QUEUE_URL;
  if (!url) throw new Error('PROCESSOR_EVENTS_QUEUE_URL is not configured');
  return url;
};

/** Puts a verified processor event on the intake queue, exactly as received. */
export const enqueueProcessorEvent = async (
  event: { id: string; type: string },
  payload: string,
): Promise<void> => {
  client ??= new SQSClient({});
  await client.send(
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
