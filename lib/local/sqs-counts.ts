import type { QueueCountReader } from '../../functions/ports/queue.ts';

/**
 * The local SQS stand-in (local-aws-sqs) counts a received, not yet deleted message in
 * ApproximateNumberOfMessages as well as in ApproximateNumberOfMessagesNotVisible; SQS counts it
 * only in the latter. Taking the in-flight ones out gives what SQS would report.
 */
export const standInQueueCounts: QueueCountReader = (attributes) => {
  const counted = Number(attributes.ApproximateNumberOfMessages ?? 0);
  const inFlight = Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  return { waiting: Math.max(0, counted - inFlight), inFlight };
};
