import { logger } from '#ports/logger.ts';
import { eventFacts, isProcessorEvent } from '#ports/processor/events.ts';
import { deleteProcessorEvent, receiveProcessorEvents } from '#ports/queue.ts';
import { applyEventOnce, tenantOfCustomer } from '#store/processor-events.ts';

export interface IntakeSummary {
  applied: number;
  duplicates: number;
  unmatched: number;
  failed: number;
}

/**
 * Drains the intake queue: each verified event is applied once (its id remembered, its tenant
 * marked due) and only then deleted. A message whose effect could not be stored stays; after the
 * queue's receive limit it moves to the dead-letter queue. At most `maxMessages` a call (about: a
 * batch is taken whole), so that the sweep can take turns between intake and reconciliation.
 */
export const drainIntake = async (
  now: () => Date,
  deadline: number,
  maxMessages = Number.POSITIVE_INFINITY,
): Promise<IntakeSummary & { empty: boolean }> => {
  const summary: IntakeSummary = { applied: 0, duplicates: 0, unmatched: 0, failed: 0 };
  let taken = 0;
  let empty = false;
  while (performance.now() < deadline && taken < maxMessages) {
    const messages = await receiveProcessorEvents();
    if (messages.length === 0) {
      empty = true;
      break;
    }
    taken += messages.length;
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
          logger.error('processor event not applied; it stays on the queue', { error: error as Error });
        }
      }),
    );
    // Messages that failed stay invisible for the visibility timeout; stop rather than spin on them.
    if (failedInBatch === messages.length) {
      empty = true;
      break;
    }
  }
  return { ...summary, empty };
};
