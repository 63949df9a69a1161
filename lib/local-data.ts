import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { QueueCountReader } from '../functions/ports/queue.ts';

/**
 * What a process beside the local control plane (the ops CLI, the smoke test) reads of it, here so
 * that lib/ops never loads lib/local: the clock offset it keeps in its data folder, and how its SQS
 * stand-in counts messages. lib/local reads and writes the same through these.
 */

/** Where the local control plane keeps its clock's offset in its data folder. */
export const clockStateFile = (dataDirectory: string): string => path.join(dataDirectory, 'clock.json');

/** The offset (ms) a clock state file holds: 0 without one. */
export const savedOffsetMs = (stateFile: string): number => {
  if (!existsSync(stateFile)) return 0;
  const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { offsetMs?: unknown };
  return typeof saved.offsetMs === 'number' && Number.isFinite(saved.offsetMs) ? saved.offsetMs : 0;
};

/**
 * The time of the local control plane kept in `dataDirectory`, for another process (the ops CLI):
 * real time plus the offset the control plane saved. Read only; it never advances the clock.
 */
export const localTimeOf = (dataDirectory: string, realNow: () => number = Date.now): Date =>
  new Date(realNow() + savedOffsetMs(clockStateFile(dataDirectory)));

/**
 * The local SQS stand-in (local-aws-sqs) counts a received, not yet deleted message in
 * ApproximateNumberOfMessages as well as in ApproximateNumberOfMessagesNotVisible; SQS counts it
 * only in the latter. Taking the in-flight ones out gives what SQS would report.
 */
export const standInQueueCounts: QueueCountReader = (attributes) => {
  const counted = Number(attributes.ApproximateNumberOfMessages ?? 0);
  const inFlight = Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  return { waiting: Math.max(0, counted - inFlight), inFlight };
};
