/**
 * Export archives of a Stack (docs/exports.md): the pure rules. An administrator starts an export;
 * the Stack's Dispatcher builds the archive and uploads it to the private bucket in parts through
 * short-lived presigned URLs; the control plane completes the upload and hands out a short-lived
 * signed download URL. No bucket name or storage path ever reaches a tenant, nor a Dispatcher's
 * own words about a failure: the tenant reads a code of ours and its text.
 */

import { type ExportFailure, exportFailureText } from './tenant-reasons.ts';

export const EXPORT_STATUSES = ['requested', 'building', 'ready', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** An export that has not ended: the Dispatcher has work to do. */
export const isRunning = (status: ExportStatus): boolean => status === 'requested' || status === 'building';

/** An export not ready this long after it was requested has failed (its Dispatcher never finished). */
export const EXPORT_BUILD_LIMIT_HOURS = 24;

/** Archives are kept this long, then the bucket's lifecycle rule deletes them. */
export const EXPORT_RETENTION_DAYS = 7;

/** How long a signed download URL works. */
export const DOWNLOAD_URL_SECONDS = 5 * 60;

/** How long a presigned part upload URL works. */
export const PART_URL_SECONDS = 15 * 60;

/** S3's multipart limits: part numbers 1 to 10,000; every part but the last at least 5 MiB. */
export const MAX_PARTS = 10_000;
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** Part URLs handed out in one request. */
export const MAX_PART_URLS_PER_REQUEST = 100;

/** The longest failure reason a Dispatcher may report (kept for operators; never shown to a tenant). */
export const FAILURE_REASON_MAX_LENGTH = 500;

export interface ExportRecord {
  exportId: string;
  stackId: string;
  status: ExportStatus;
  requestedAt: string;
  /** Who asked for it (the administrator's user id). */
  requestedBy: string;
  readyAt?: string;
  failedAt?: string;
  /** The archive's size in bytes (once ready). */
  sizeBytes?: number;
  /** Why it failed, as the tenant is told (a code of ours). */
  failureCode?: ExportFailure;
}

/** An export id: `exp_`, the request time (sorts by it), and 48 random bits (hex). */
export const exportId = (now: Date, random: string): string =>
  `exp_${now.getTime().toString(36).padStart(9, '0')}${random}`;

export const EXPORT_ID = /^exp_[a-z0-9]{9}[0-9a-f]{12}$/;

/** The running export has been at it longer than the limit: it counts as failed. */
export const isStale = (record: Pick<ExportRecord, 'status' | 'requestedAt'>, now: Date): boolean =>
  isRunning(record.status) &&
  now.getTime() - Date.parse(record.requestedAt) > EXPORT_BUILD_LIMIT_HOURS * 3600_000;

/** The status as of `now`: a running export past the limit, or on a torn-down Stack, has failed. */
export const effectiveStatus = (
  record: ExportRecord,
  stack: { lifecycle: string },
  now: Date,
): { status: ExportStatus; failureCode?: ExportFailure } => {
  if (!isRunning(record.status))
    return record.status === 'failed'
      ? // A failure recorded before codes were kept shows as the Stack's failure to build.
        { status: 'failed', failureCode: record.failureCode ?? 'build_failed' }
      : { status: record.status };
  if (stack.lifecycle === 'torn_down') return { status: 'failed', failureCode: 'stack_torn_down' };
  if (isStale(record, now)) return { status: 'failed', failureCode: 'build_timed_out' };
  return { status: record.status };
};

/** Why an export cannot start now, or undefined: the Stack must not be torn down; one export at a time. */
export const startRefusal = (
  stack: { lifecycle: string },
  running: Pick<ExportRecord, 'exportId' | 'status' | 'requestedAt'> | undefined,
  now: Date,
): { code: 'stack_torn_down' | 'export_in_progress'; exportId?: string } | undefined => {
  if (stack.lifecycle === 'torn_down') return { code: 'stack_torn_down' };
  if (running && isRunning(running.status) && !isStale(running, now))
    return { code: 'export_in_progress', exportId: running.exportId };
  return undefined;
};

/** Why a download cannot be handed out now, or undefined. */
export const downloadRefusal = (
  record: ExportRecord,
  stack: { lifecycle: string },
  now: Date,
): 'stack_torn_down' | 'export_not_ready' | 'export_failed' | 'export_expired' | undefined => {
  if (stack.lifecycle === 'torn_down') return 'stack_torn_down';
  const { status } = effectiveStatus(record, stack, now);
  if (status === 'failed') return 'export_failed';
  if (status !== 'ready') return 'export_not_ready';
  const readyAt = Date.parse(record.readyAt ?? record.requestedAt);
  if (now.getTime() - readyAt >= EXPORT_RETENTION_DAYS * 86_400_000) return 'export_expired';
  return undefined;
};

/** Part URLs asked for: whole numbers 1..MAX_PARTS, at most MAX_PART_URLS_PER_REQUEST, no repeats. */
export const partNumbersProblem = (partNumbers: readonly number[]): string | undefined => {
  if (partNumbers.length === 0) return 'ask for at least one part number';
  if (partNumbers.length > MAX_PART_URLS_PER_REQUEST)
    return `ask for at most ${MAX_PART_URLS_PER_REQUEST} part numbers at a time`;
  if (partNumbers.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_PARTS))
    return `part numbers are whole numbers from 1 to ${MAX_PARTS}`;
  if (new Set(partNumbers).size !== partNumbers.length) return 'each part number once';
  return undefined;
};

/**
 * The parts a Dispatcher says it uploaded, checked before the upload is completed: numbered
 * 1..n without gaps, in order (S3 needs them ascending).
 */
export const uploadedPartsProblem = (parts: readonly { partNumber: number }[]): string | undefined => {
  if (parts.length === 0) return 'an archive has at least one part';
  if (parts.length > MAX_PARTS) return `at most ${MAX_PARTS} parts`;
  for (const [index, part] of parts.entries())
    if (part.partNumber !== index + 1) return 'parts are numbered 1, 2, 3, ... in order, without gaps';
  return undefined;
};

/**
 * What a tenant sees of an export: never the bucket, the object key or the upload, nor what the
 * Dispatcher wrote about a failure (`failureCode` and its text instead).
 */
export const exportView = (record: ExportRecord, stack: { lifecycle: string }, now: Date) => {
  const { status, failureCode } = effectiveStatus(record, stack, now);
  return {
    exportId: record.exportId,
    stackId: record.stackId,
    status,
    requestedAt: record.requestedAt,
    readyAt: status === 'ready' ? (record.readyAt ?? null) : null,
    sizeBytes: status === 'ready' ? (record.sizeBytes ?? null) : null,
    failureCode: status === 'failed' ? (failureCode ?? null) : null,
    failureReason: status === 'failed' && failureCode ? exportFailureText(failureCode) : null,
    /** Until when the archive can be downloaded (kept EXPORT_RETENTION_DAYS after it is ready). */
    availableUntil:
      status === 'ready' && record.readyAt
        ? new Date(Date.parse(record.readyAt) + EXPORT_RETENTION_DAYS * 86_400_000).toISOString()
        : null,
  };
};
