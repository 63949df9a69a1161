import { Refusal } from '#core/refusal.ts';
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
  throw new Refusal(
    'conflict',
    'plan_changes_unavailable',
    `Plan Changes are not available yet: these release gates are not ready: ${down.join(', ')}.`,
    { extra: { gatesNotReady: down } },
  );
};
