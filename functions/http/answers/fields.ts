/**
 * The field shapes that many answers share (./schemas.ts, ./operations.ts): one definition each,
 * so that an instant or an amount means the same everywhere in the document.
 */
import * as v from 'valibot';

/** An instant, as an ISO 8601 string. */
export const Instant = v.pipe(v.string(), v.isoTimestamp());

/** A whole number (amounts are in minor units). */
export const Integer = v.pipe(v.number(), v.integer());

/** A field that may be null, with what it means and what its null means. */
export const orNull = <const T extends v.GenericSchema>(schema: T, description: string) =>
  v.pipe(v.nullable(schema), v.description(description));

/** An instant, with what the field means. */
export const describedInstant = (description: string) => v.pipe(Instant, v.description(description));

/** What a Plan gives a Stack (the catalog's Plans, the Dispatcher's configuration). */
export const PlanResources = v.object({
  vcpu: Integer,
  vcpuKind: v.picklist(['shared']),
  memoryGb: Integer,
  storageGb: Integer,
});
