import type { AdjustableClock } from '../clock.ts';
import { ProcessorEmulator } from './emulator.ts';

/** Test-mode credentials of the local processor (not secrets: they only open the emulator). */
export const LOCAL_PROCESSOR_API_KEY = 'sk_test_local_emulator';
export const LOCAL_WEBHOOK_SECRET = 'whsec_local_emulator_signing_secret';

/** Starts the processor emulator on the shared clock: every clock advance bills what came due. */
export const startLocalProcessor = async (
  clock: AdjustableClock,
  stateFile?: string,
): Promise<ProcessorEmulator> => {
  const emulator = new ProcessorEmulator({ now: () => clock.now(), ...(stateFile ? { stateFile } : {}) });
  await emulator.start();
  clock.onAdvance(() => emulator.tick());
  return emulator;
};

/** The environment that points the processor adapter at the emulator (the one at `url`). */
export const processorEnvironment = (url: string): Record<string, string> => ({
  PROCESSOR_API_URL: url,
  PROCESSOR_API_KEY: LOCAL_PROCESSOR_API_KEY,
  PROCESSOR_WEBHOOK_SECRET: LOCAL_WEBHOOK_SECRET,
});

/** Delivers the emulator's webhooks to the control plane at `apiUrl`. */
export const deliverWebhooksTo = (emulator: ProcessorEmulator, apiUrl: string): void =>
  emulator.setWebhook({ url: `${apiUrl}/v1/webhooks/processor`, secret: LOCAL_WEBHOOK_SECRET });
