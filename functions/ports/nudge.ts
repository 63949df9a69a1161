import { config } from './config.ts';

/**
 * Asks for a sweep now, without waiting for it. In the cloud an asynchronous invocation of the
 * reconciler (reserved concurrency 1, so it never overlaps a running sweep); locally the local
 * sweeper, which runs again after the current run instead of overlapping it.
 */
let local: (() => void) | undefined;

export const installLocalNudge = (nudge: () => void): void => {
  local = nudge;
};

export const nudgeSweep = async (): Promise<void> => {
  if (local) {
    local();
    return;
  }
  const functionName = config.reconcilerFunctionName();
  if (!functionName) return;
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  await new LambdaClient({}).send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'Event',
      Payload: Buffer.from('{"source":"nudge"}'),
    }),
  );
};
