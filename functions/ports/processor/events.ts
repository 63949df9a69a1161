/**
 * Processor event shapes are read here, at the processor border (functions/ports), and nowhere else.
 *
 * What the sweep takes from a processor event: only who it concerns. The event is a trigger; the
 * decision is made from the processor's current truth, whatever order events arrive in.
 */
export interface ProcessorEventEnvelope {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

export interface EventFacts {
  eventId: string;
  type: string;
  /** Our tenant id, when the object carries it (metadata or client_reference_id). */
  tenantId: string | undefined;
  customerId: string | undefined;
  subscriptionId: string | undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export const eventFacts = (event: ProcessorEventEnvelope): EventFacts => {
  const object = event.data.object;
  const kind = text(object.object);
  const subscriptionDetails = record(record(object.parent).subscription_details);
  const tenantId =
    text(record(object.metadata).tenantId) ??
    text(object.client_reference_id) ??
    text(record(subscriptionDetails.metadata).tenantId);
  const subscriptionId =
    kind === 'subscription'
      ? text(object.id)
      : (text(object.subscription) ?? text(subscriptionDetails.subscription));
  return { eventId: event.id, type: event.type, tenantId, customerId: text(object.customer), subscriptionId };
};

export const isProcessorEvent = (value: unknown): value is ProcessorEventEnvelope => {
  const candidate = record(value);
  return (
    text(candidate.id) !== undefined &&
    text(candidate.type) !== undefined &&
    typeof record(candidate.data).object === 'object' &&
    record(candidate.data).object !== null &&
    !Array.isArray(record(candidate.data).object)
  );
};
