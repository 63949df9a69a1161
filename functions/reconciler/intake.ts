import { intakeRetrySeconds } from '#core/intake-retry.ts';
import { logger } from '#ports/logger.ts';
import { eventFacts, isProcessorEvent } from '#ports/processor/events.ts';
import {
  deleteProcessorEvent,
  intakeVisibilityTimeoutSeconds,
  type QueuedEvent,
  receiveProcessorEvents,
  retryProcessorEventAfter,
} from '#ports/queue.ts';
import { applyEventOnce, tenantOfCustomer } from '#store/processor-events.ts';

export interface IntakeSummary {
  applied: number;
  duplicates: number;
  unmatched: number;
  failed: number;
}

/**
 * Batches taken from the queue while earlier ones are still being applied. Events arrive one by
 * one (a paid checkout sends seven within a few milliseconds), and applying one takes a few table
 * round trips: receiving the next batch while the last is applied keeps a burst from queueing
 * behind itself, which is most of the time between a payment and `active`.
 */
const BATCHES_IN_FLIGHT = 4;

/**
 * A message whose effect could not be stored comes back after the retry rule's wait
 * (functions/core/intake-retry.ts) when that is shorter than the queue's visibility timeout. If
 * that cannot be said to the queue, it comes back after the timeout all the same.
 */
const retrySoon = async (message: QueuedEvent): Promise<void> => {
  const timeout = await intakeVisibilityTimeoutSeconds();
  if (timeout === undefined) return;
  const wait = intakeRetrySeconds(message.receives, timeout);
  if (wait >= timeout) return;
  await retryProcessorEventAfter(message.receiptHandle, wait).catch((error: unknown) =>
    logger.warn('processor event left to its visibility timeout', { error: error as Error }),
  );
};

/**
 * Drains the intake queue: each verified event is applied once (its id remembered, its tenant
 * marked due) and only then deleted. A message whose effect could not be stored stays; after the
 * queue's receive limit it moves to the dead-letter queue; it is received again after a short wait
 * that grows with each failure (`retrySoon`). At most `maxMessages` a call (about: a
 * batch is taken whole), so that the sweep can take turns between intake and reconciliation.
 * `empty`: the queue answered nothing once every batch taken had been applied (or a whole batch
 * failed: its messages stay invisible until their retry, so the drain stops rather than
 * spin on them).
 */
export const drainIntake = async (
  now: () => Date,
  deadline: number,
  maxMessages = Number.POSITIVE_INFINITY,
): Promise<IntakeSummary & { empty: boolean }> => {
  const summary: IntakeSummary = { applied: 0, duplicates: 0, unmatched: 0, failed: 0 };
  let taken = 0;
  let empty = false;
  let stuck = false;
  const applyBatch = async (messages: QueuedEvent[]): Promise<void> => {
    let failedInBatch = 0;
    await Promise.all(
      messages.map(async (message) => {
        try {
          const parsed: unknown = JSON.parse(message.body);
          if (!isProcessorEvent(parsed)) throw new Error('not a processor event');
          const facts = eventFacts(parsed);
          const tenantId =
            facts.tenantId ?? (facts.customerId ? await tenantOfCustomer(facts.customerId) : undefined);
          const outcome = await applyEventOnce({ ...facts, tenantId }, now());
          if (outcome === 'applied') summary.applied++;
          else if (outcome === 'duplicate') summary.duplicates++;
          else summary.unmatched++;
          await deleteProcessorEvent(message.receiptHandle);
        } catch (error) {
          failedInBatch++;
          summary.failed++;
          logger.error('processor event not applied; it stays on the queue', {
            receives: message.receives,
            error: error as Error,
          });
          await retrySoon(message);
        }
      }),
    );
    if (failedInBatch === messages.length) stuck = true;
  };
  let applying: Promise<void>[] = [];
  const settle = async () => {
    await Promise.all(applying);
    applying = [];
  };
  while (!stuck && performance.now() < deadline && taken < maxMessages) {
    const messages = await receiveProcessorEvents();
    if (messages.length === 0) {
      if (applying.length === 0) {
        empty = true;
        break;
      }
      // More may have come while those were applied: look again once they are.
      await settle();
      continue;
    }
    taken += messages.length;
    applying.push(applyBatch(messages));
    if (applying.length >= BATCHES_IN_FLIGHT) await settle();
  }
  await settle();
  return { ...summary, empty: empty || stuck };
};
