import type { TaxRates } from './billing.ts';
import type { Renderer } from './render.ts';
import type { ProcessorState } from './state.ts';

/**
 * What the emulator's resource modules share: the state, its renderer, the clock, ids, events
 * and saving. The ProcessorEmulator facade is one; resources receive it and import nothing of it.
 */
export interface EmulatorContext {
  readonly state: ProcessorState;
  readonly render: Renderer;
  /** Tax rates (percent) by customer country, for automatic tax. */
  readonly taxRates: TaxRates;
  nowSeconds(): number;
  newId(prefix: string): string;
  /** Records an event and queues its webhook delivery. */
  emit(type: string, object: unknown, previousAttributes?: Record<string, unknown>): void;
  /** Keeps the state file current (debounced). */
  save(): void;
}
