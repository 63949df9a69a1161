import {
  effectiveStatus,
  exportView,
  FAILURE_REASON_MAX_LENGTH,
  isRunning,
  PART_URL_SECONDS,
  partNumbersProblem,
  uploadedPartsProblem,
} from '#core/exports.ts';
import { refuse } from '#core/refusals/index.ts';
import type { ExportFailure } from '#core/tenant-reasons.ts';
import { completeUpload, createUpload, partUploadUrls, UploadRefused } from '#ports/export-storage.ts';
import { logger } from '#ports/logger.ts';
import { recordDispatcherFailure } from '#ports/metrics.ts';
import { endExport, getExport, recordUpload } from '#store/exports.ts';
import { requireExport } from '../lookups/index.ts';

/**
 * The Dispatcher's side of an export (docs/dispatcher.md, docs/exports.md): it asks for presigned
 * part URLs, PUTs the archive's parts to them, and reports the outcome with the parts' ETags; the
 * control plane then completes the upload. A Dispatcher reaches only its own Stack's exports.
 */

const notRunning = (exportId: string, status: string) =>
  refuse('export_not_running', { exportId, status }, { extra: { status } });

/** Presigned URLs for the parts asked for; the first request makes the multipart upload. */
export const exportPartUrls = async (params: {
  tenantId: string;
  stackId: string;
  exportId: string;
  partNumbers: number[];
  now: Date;
}) => {
  const problem = partNumbersProblem(params.partNumbers);
  if (problem)
    throw refuse(
      'invalid_field',
      { what: `Field "partNumbers" is invalid: ${problem}.` },
      { field: 'partNumbers' },
    );
  const { stack, record } = await requireExport(params.tenantId, params.stackId, params.exportId);
  const { status } = effectiveStatus(record, stack, params.now);
  if (!isRunning(status)) throw notRunning(record.exportId, status);
  let uploadId = record.uploadId;
  if (!uploadId) {
    const created = await createUpload(record.objectKey);
    // Two first requests at once: the first recorded upload wins; the other one is left to the
    // bucket's rule that removes unfinished uploads.
    if (await recordUpload(params.tenantId, params.stackId, record.exportId, created)) uploadId = created;
    else uploadId = (await getExport(params.tenantId, params.stackId, record.exportId))?.uploadId;
    if (!uploadId) throw notRunning(record.exportId, 'no longer running');
  }
  const expiresAt = new Date(params.now.getTime() + PART_URL_SECONDS * 1000);
  return {
    exportId: record.exportId,
    parts: await partUploadUrls(record.objectKey, uploadId, params.partNumbers, PART_URL_SECONDS),
    expiresAt: expiresAt.toISOString(),
  };
};

export type ExportOutcome =
  | { outcome: 'ready'; sizeBytes: number; parts: { partNumber: number; etag: string }[] }
  | { outcome: 'failed'; reason: string };

/**
 * The Dispatcher's outcome: `ready` completes the upload (S3 checks every part's ETag) and checks
 * the size; `failed` ends the export with our reason code (`build_failed`), the Dispatcher's own
 * words kept for operators only (stored, logged, counted). A repeated report of an ended export
 * answers its status and changes nothing.
 */
export const reportExportOutcome = async (params: {
  tenantId: string;
  stackId: string;
  exportId: string;
  report: ExportOutcome;
  now: Date;
}) => {
  const { stack, record } = await requireExport(params.tenantId, params.stackId, params.exportId);
  const answer = async () => {
    const stored = await getExport(params.tenantId, params.stackId, params.exportId);
    return exportView(stored ?? record, stack, params.now);
  };
  if (!isRunning(record.status)) return answer();
  const { status } = effectiveStatus(record, stack, params.now);
  if (!isRunning(status)) throw notRunning(record.exportId, status);
  const fail = (failureCode: ExportFailure, dispatcherReason?: string) =>
    endExport(params.tenantId, params.stackId, record.exportId, {
      status: 'failed',
      failedAt: params.now.toISOString(),
      failureCode,
      ...(dispatcherReason ? { dispatcherReason: dispatcherReason.slice(0, FAILURE_REASON_MAX_LENGTH) } : {}),
    });
  const { report } = params;
  if (report.outcome === 'failed') {
    if (await fail('build_failed', report.reason)) {
      logger.warn('a Dispatcher reported an export failed', {
        tenantId: params.tenantId,
        stackId: params.stackId,
        exportId: record.exportId,
        failureCode: 'build_failed',
        dispatcherReason: report.reason,
      });
      recordDispatcherFailure('export');
    }
    return answer();
  }
  const problem = uploadedPartsProblem(report.parts);
  if (problem)
    throw refuse('invalid_field', { what: `Field "parts" is invalid: ${problem}.` }, { field: 'parts' });
  if (!record.uploadId) throw refuse('nothing_uploaded');
  let size: number;
  try {
    size = await completeUpload(record.objectKey, record.uploadId, report.parts);
  } catch (error) {
    if (!(error instanceof UploadRefused)) throw error;
    await fail('upload_incomplete');
    throw refuse('upload_incomplete', { problem: error.message });
  }
  if (size !== report.sizeBytes) {
    logger.warn('an export archive is not the size its Dispatcher reported', {
      tenantId: params.tenantId,
      exportId: record.exportId,
      storedBytes: size,
      reportedBytes: report.sizeBytes,
    });
    await fail('size_mismatch');
    throw refuse('size_mismatch', undefined, { extra: { storedBytes: size } });
  }
  await endExport(params.tenantId, params.stackId, record.exportId, {
    status: 'ready',
    readyAt: params.now.toISOString(),
    sizeBytes: size,
  });
  return answer();
};
