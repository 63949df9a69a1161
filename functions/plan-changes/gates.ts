import { refuse } from '#core/refusals/index.ts';
import { config } from '#ports/config.ts';

/** Whether the Plan Change controls may show, and each release gate. */
export const planChangeControls = () => {
  const gates = config.planChangeGates();
  return { visible: Object.values(gates).every(Boolean), gates };
};

/** With any release gate down, every Plan Change endpoint answers this and starts nothing. */
export const requireGatesReady = (): void => {
  const { visible, gates } = planChangeControls();
  if (visible) return;
  const down = Object.entries(gates)
    .filter(([, ready]) => !ready)
    .map(([gate]) => gate);
  throw refuse('plan_changes_unavailable', { gates: down.join(', ') }, { extra: { gatesNotReady: down } });
};
