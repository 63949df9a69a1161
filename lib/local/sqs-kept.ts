import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { createRequestHandler } from 'local-aws-sqs';

/**
 * The SQS stand-in's messages, kept in the data folder so they outlive our process (SIGKILL
 * included), as SQS's outlive a Lambda. local-aws-sqs keeps its records in private fields and
 * real-time timers, so its queue objects are watched from outside: every send (and every move to
 * the dead-letter queue, which the stand-in makes with a send of the same message id), receive,
 * visibility change, delete and purge updates one record per message here, written to
 * `<data-dir>/queues.json` (temporary file and rename) before the stand-in answers. On the next
 * start, when a queue of that name is created again, its kept messages are put back in it:
 * - not yet received (or delayed): queued again with the rest of the delay;
 * - received and not deleted: in flight until the visibility timeout it was given ends, then
 *   visible again, or moved to the dead-letter queue when its receives reached `maxReceiveCount`
 *   (the stand-in's own redrive does it, from the count kept here);
 * - deleted: gone, never back.
 * Times are the stand-in's own: the wall clock (`Date.now`), as its visibility timers use.
 * Without a file (the test layers that have no data folder) this is memory only.
 */

type StandInQueue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];

/** What SendMessage handed the stand-in (its own names), enough to queue the message again. */
interface SentInput {
  MessageBody: string;
  MessageAttributes?: unknown;
  MessageSystemAttributes?: unknown;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
  DelaySeconds?: number | string;
}

export interface KeptMessage {
  queue: string;
  id: string;
  sent: SentInput;
  sentAt: number;
  /** Delayed until (ms); 0 when sent without a delay. */
  delayedUntil: number;
  /** Receives as the stand-in counts them (a visibility change counts as one there). */
  receives: number;
  /** Visibility changes made to it (taken off the count answered, as SQS does not count them). */
  changes: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
  /** In flight until (ms), once received. */
  invisibleUntil?: number;
}

interface KeptFile {
  messages: KeptMessage[];
}

/** The message id a receipt handle of the stand-in's names (base64 of a UUID and a JSON object). */
export const messageIdOf = (receiptHandle: string): string | undefined => {
  try {
    const text = Buffer.from(receiptHandle, 'base64').toString('utf8');
    const parsed = JSON.parse(text.slice(text.indexOf('{'))) as { MessageId?: unknown };
    return typeof parsed.MessageId === 'string' ? parsed.MessageId : undefined;
  } catch {
    return undefined;
  }
};

const visibilitySeconds = (asked: unknown, queue: StandInQueue): number => {
  const seconds = Number(asked);
  return Number.isNaN(seconds) || asked === undefined || asked === null ? queue.VisibilityTimeout : seconds;
};

export class KeptMessages {
  /** Message id → its record; a message id lives in one queue at a time (a redrive moves it). */
  private readonly messages = new Map<string, KeptMessage>();
  private readonly file: string | undefined;
  private readonly adopted = new WeakSet<StandInQueue>();
  /** Queue names whose kept messages were put back already (once per start). */
  private readonly restored = new Set<string>();
  private readonly now: () => number;

  constructor(file?: string, now: () => number = Date.now) {
    this.file = file;
    this.now = now;
    if (file && existsSync(file)) {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptFile;
      for (const message of kept.messages) this.messages.set(message.id, message);
    }
  }

  /** Visibility changes made to a message (the count SQS would answer is the stand-in's minus these). */
  changesOf(messageId: string): number {
    return this.messages.get(messageId)?.changes ?? 0;
  }

  /** Every kept message (for tests and the drill's report). */
  list(): KeptMessage[] {
    return [...this.messages.values()].map((message) => ({ ...message }));
  }

  /**
   * Watches a queue of the stand-in's (once): puts back what was kept for its name, then records
   * every change to its messages from now on.
   */
  adopt(queue: StandInQueue): void {
    if (this.adopted.has(queue)) return;
    this.adopted.add(queue);
    if (!this.restored.has(queue.QueueName)) {
      this.restored.add(queue.QueueName);
      this.restore(queue);
    }
    this.watch(queue);
  }

  private watch(queue: StandInQueue): void {
    const setRecord = queue.setRecord;
    queue.setRecord = (input: SentInput, messageId?: string) => {
      const added = setRecord(input, messageId);
      const id = added?.record?.MessageId as string | undefined;
      // A FIFO duplicate answers the message already kept: nothing new.
      if (id && !(queue.FifoQueue && this.messages.get(id)?.queue === queue.QueueName)) {
        const now = this.now();
        const delay = Number(input.DelaySeconds);
        const seconds = Number.isNaN(delay) ? queue.DelaySeconds : delay;
        // A move to the dead-letter queue sends the same id: the message is now there alone.
        this.messages.delete(id);
        this.messages.set(id, {
          queue: queue.QueueName,
          id,
          sent: {
            MessageBody: input.MessageBody,
            ...(input.MessageAttributes ? { MessageAttributes: input.MessageAttributes } : {}),
            ...(input.MessageSystemAttributes
              ? { MessageSystemAttributes: input.MessageSystemAttributes }
              : {}),
            ...(input.MessageGroupId ? { MessageGroupId: input.MessageGroupId } : {}),
            ...(input.MessageDeduplicationId ? { MessageDeduplicationId: input.MessageDeduplicationId } : {}),
          },
          sentAt: now,
          delayedUntil: seconds > 0 ? now + seconds * 1000 : 0,
          receives: 0,
          changes: 0,
        });
        this.save();
      }
      return added;
    };
    const receive = queue.receive;
    queue.receive = async (params: { VisibilityTimeout?: unknown }) => {
      const records = (await receive.call(queue, params)) as {
        MessageId: string;
        ReceiptHandle: string;
        attributes: Record<string, string>;
      }[];
      if (records.length === 0) return records;
      const invisibleUntil = this.now() + visibilitySeconds(params?.VisibilityTimeout, queue) * 1000;
      for (const record of records) {
        const kept = this.messages.get(record.MessageId);
        if (!kept) continue;
        kept.receives = Number(record.attributes.ApproximateReceiveCount ?? kept.receives + 1);
        kept.firstReceivedAt ??= Number(record.attributes.ApproximateFirstReceiveTimestamp) || this.now();
        kept.receiptHandle = record.ReceiptHandle;
        kept.invisibleUntil = invisibleUntil;
      }
      this.save();
      return records;
    };
    const changeVisibility = queue.changeVisibility;
    queue.changeVisibility = (receiptHandle: string, timeout: string) => {
      const changed = changeVisibility.call(queue, receiptHandle, timeout);
      const id = messageIdOf(receiptHandle);
      const kept = id ? this.messages.get(id) : undefined;
      if (changed && kept) {
        // The stand-in counts the change as a receive.
        kept.receives += 1;
        kept.changes += 1;
        kept.invisibleUntil = this.now() + Number(timeout) * 1000;
        this.save();
      }
      return changed;
    };
    const remove = queue.delete;
    queue.delete = (receiptHandle: string) => {
      const deleted = remove.call(queue, receiptHandle);
      const id = messageIdOf(receiptHandle);
      if (deleted && id && this.messages.get(id)?.queue === queue.QueueName) {
        this.messages.delete(id);
        this.save();
      }
      return deleted;
    };
    const clearRecords = queue.clearRecords;
    queue.clearRecords = () => {
      clearRecords.call(queue);
      for (const [id, message] of this.messages)
        if (message.queue === queue.QueueName) this.messages.delete(id);
      this.save();
    };
  }

  /** Puts the kept messages of `queue`'s name back in it, in the order they were sent. */
  private restore(queue: StandInQueue): void {
    const now = this.now();
    for (const kept of this.messages.values()) {
      if (kept.queue !== queue.QueueName) continue;
      const delay = Math.max(0, kept.delayedUntil - now) / 1000;
      const added = queue.setRecord({ ...kept.sent, DelaySeconds: delay }, kept.id);
      const record = added?.record as
        | { ReceiptHandle: string; attributes: Record<string, string> }
        | undefined;
      if (!record) continue;
      record.attributes.SentTimestamp = String(kept.sentAt);
      if (kept.firstReceivedAt)
        record.attributes.ApproximateFirstReceiveTimestamp = String(kept.firstReceivedAt);
      if (kept.receives === 0 || !kept.receiptHandle) continue;
      // In flight for the rest of its visibility timeout: the stand-in's visibility change sets the
      // timer (and counts one receive, so the count is set one short first). When that timer
      // fires, the stand-in makes it visible again or, past maxReceiveCount, moves it to the
      // dead-letter queue; an already ended timeout fires at once.
      record.attributes.ApproximateReceiveCount = String(kept.receives - 1);
      record.ReceiptHandle = kept.receiptHandle;
      const remaining = Math.max(0, (kept.invisibleUntil ?? 0) - now) / 1000;
      queue.changeVisibility(kept.receiptHandle, String(remaining));
    }
  }

  /** Writes every kept message (temporary file renamed over the old: a kill mid-write keeps the old). */
  private save(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const partial = `${this.file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ messages: [...this.messages.values()] } satisfies KeptFile));
    renameSync(partial, this.file);
  }
}
