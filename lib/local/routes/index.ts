import type { AdjustableClock } from '../clock.ts';
import type { FaultBoard } from '../faults.ts';
import type { FleetSimulator } from '../fleet.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import type { MailArchive } from '../mail.ts';
import type { ProcessorEmulator } from '../processor/emulator.ts';
import type { LocalSweeper } from '../sweeper.ts';
import { accountRoutes } from './accounts.ts';
import { clockRoutes } from './clock.ts';
import { faultRoutes } from './faults.ts';
import { fleetRoutes } from './fleet.ts';
import { gatesRoute } from './gates.ts';
import { mailRoute } from './mail.ts';
import { payRoute } from './processor.ts';
import { sweepRoutes } from './sweep.ts';

export interface LocalRouteParts {
  /** The processor emulator: `POST /_local/processor/checkout/{sessionId}/pay`, and clock advances wait for its webhooks. */
  processor?: ProcessorEmulator | undefined;
  /** The kept copy of the sent mail: `GET /_local/mail`. */
  mail?: MailArchive | undefined;
  /** The fleet simulator (reference Dispatchers): `/_local/fleet/...`. */
  fleet?: FleetSimulator | undefined;
  /** The fault board: `/_local/faults` (faults on demand). */
  faults?: FaultBoard | undefined;
}

/**
 * Routes that exist only in the local control plane (never in the CDK app), one file per area:
 * paying a checkout without a browser (processor.ts), the sent mail (mail.ts), the fleet simulator
 * (fleet.ts), faults on demand (faults.ts), the clock (clock.ts), a sweep on demand (sweep.ts), the
 * Plan Change gates (gates.ts), the sign-in shortcut and adding members (accounts.ts). They run
 * through the same HTTP conventions as the real handlers.
 */
export const localRoutes = (
  clock: AdjustableClock,
  sweeper: LocalSweeper,
  parts: LocalRouteParts = {},
): AdapterRoute[] => [
  ...(parts.processor ? [payRoute(parts.processor)] : []),
  ...(parts.mail ? [mailRoute(parts.mail)] : []),
  ...(parts.fleet ? fleetRoutes(parts.fleet) : []),
  ...(parts.faults ? faultRoutes(parts.faults) : []),
  ...clockRoutes(clock, parts.processor),
  ...sweepRoutes(sweeper),
  gatesRoute,
  ...accountRoutes,
];
