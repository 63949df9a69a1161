import Stripe from 'stripe';
import { config } from '../config.ts';
import { recordDependencyFault } from '../metrics.ts';
import { awaitProcessorTurn } from '../rate-limit.ts';
import { secretValue } from '../secrets.ts';
import { processorTimeLeftMs, requestBudget } from './deadline.ts';
import { ProcessorError } from './errors.ts';

/**
 * The payment processor port, and its only adapter: Stripe through the official SDK. The port is
 * this folder, one module per processor resource (as the emulator in lib/local/processor/ is
 * split); this module is what they share: the client, the rate limit and the deadline each
 * request waits on, and the mapping of Stripe's failures to ProcessorError. Nothing outside
 * functions/ports/processor/ imports `stripe` (a rule of .dependency-cruiser.cjs). Every POST
 * carries a deterministic idempotency key of ours.
 */

/** THE Stripe API version this project speaks (the one the `stripe` package pins). */
export const PROCESSOR_API_VERSION = '2026-10-28.endive' as const;

/** Marks the objects this project manages in the processor account. */
export const MANAGED_BY = 'stack-control-plane';

let current: { apiKey: string; stripe: Stripe } | undefined;

/**
 * The Stripe client for the API key in force (read through the secrets port, so a key pasted into
 * its secret is used within `SECRET_MAX_AGE_MINUTES`, and a new client is made for it);
 * `PROCESSOR_API_URL` points it at the local emulator.
 */
const client = async (): Promise<Stripe> => {
  const apiKey = await secretValue('PROCESSOR_API_KEY');
  if (current?.apiKey === apiKey) return current.stripe;
  const apiUrl = config.processorApiUrl();
  const endpoint = apiUrl ? new URL(apiUrl) : undefined;
  const stripe = new Stripe(apiKey, {
    apiVersion: PROCESSOR_API_VERSION,
    timeout: 8000,
    maxNetworkRetries: 2,
    appInfo: { name: MANAGED_BY },
    ...(endpoint
      ? {
          host: endpoint.hostname,
          port: Number(endpoint.port),
          protocol: endpoint.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
  current = { apiKey, stripe };
  return stripe;
};

type RequestOptions = { timeout: number; maxNetworkRetries: number };

/** One processor request: waits its turn, within the deadline's budget; Stripe's failures become ProcessorError. */
export const call = async <T>(
  operation: (stripe: Stripe, options: RequestOptions) => Promise<T>,
): Promise<T> => {
  await awaitProcessorTurn();
  const stripe = await client();
  const budget = requestBudget(processorTimeLeftMs());
  if (!budget)
    throw new ProcessorError('unavailable', 'no time left for a processor request', { notSent: true });
  try {
    return await operation(stripe, budget);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) {
      const unavailable =
        error.type === 'StripeConnectionError' ||
        error.type === 'StripeAPIError' ||
        (error.statusCode ?? 0) >= 500 ||
        error.statusCode === 429;
      if (unavailable)
        recordDependencyFault(error.statusCode === 429 ? 'processor_rate_limited' : 'processor_unavailable');
      throw new ProcessorError(unavailable ? 'unavailable' : 'rejected', error.message);
    }
    throw error;
  }
};

/** An epoch-seconds stamp of the processor's as an ISO date (null when absent). */
export const iso = (epochSeconds: number | null | undefined): string | null =>
  typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString() : null;
