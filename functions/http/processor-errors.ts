/** Processor failures as 502s: the one definition lives with the use cases. */
export { viaProcessor } from '../billing/processor-errors.ts';
