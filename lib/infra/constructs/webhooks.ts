import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_RECEIVES } from '../../constants.ts';

/** The intake queue of verified processor events, with its dead-letter queue. */
export class ProcessorEventQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Events', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      visibilityTimeout: Duration.minutes(2),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });
  }
}
