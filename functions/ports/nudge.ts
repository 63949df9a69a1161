import { config } from './config.ts';
import { traced } from './tracer.ts';

/**
 * How a sweep is asked for now, without waiting for it. In the cloud an asynchronous invocation of
 * the reconciler, at most once per NUDGE_WINDOW_MS however many webhooks arrive (the window is
 * claimed in the table by the nudge itself, functions/reconciler/nudge.ts); a sweep that starts
 * within a window of a nudge looks at intake again once the window has passed
 * (functions/reconciler/run-sweep.ts), so an event whose nudge was folded into another's is not
 * left to the schedule. Locally the local sweeper, which folds nudges itself: it runs again once
 * after the current run instead of overlapping it.
 */
export const NUDGE_WINDOW_MS = 2000;

let local: (() => void) | undefined;

export const installLocalNudge = (nudge: () => void): void => {
  local = nudge;
};

/**
 * How this process reaches the sweep: the local sweeper (`local`, which folds nudges itself), the
 * reconciler Lambda (`cloud`, to be invoked once per window), or nothing (no sweep to nudge).
 */
export const sweepInvoker = ():
  | { kind: 'local'; invoke: () => void }
  | { kind: 'cloud'; invoke: () => Promise<void> }
  | undefined => {
  if (local) return { kind: 'local', invoke: local };
  const functionName = config.reconcilerFunctionName();
  if (!functionName) return undefined;
  return {
    kind: 'cloud',
    invoke: async () => {
      const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
      await traced(new LambdaClient({})).send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'Event',
          Payload: Buffer.from('{"source":"nudge"}'),
        }),
      );
    },
  };
};
