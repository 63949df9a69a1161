import { DOWNLOAD_URL_SECONDS, downloadRefusal, EXPORT_RETENTION_DAYS } from '#core/exports.ts';
import { Refusal } from '#core/refusal.ts';
import { signedDownloadUrl } from '#ports/export-storage.ts';
import { type ExportRequest, requireExport } from './read.ts';

const REFUSALS = {
  stack_torn_down: ['conflict', 'This Stack has been torn down: its exports are gone with it.'],
  export_not_ready: [
    'conflict',
    'The archive is not ready yet: follow GET /v1/stacks/{stackId}/exports/{exportId}.',
  ],
  export_failed: [
    'conflict',
    'This export failed (GET shows why): start a new one with POST /v1/stacks/{stackId}/exports.',
  ],
  export_expired: [
    'gone',
    `Archives are kept ${EXPORT_RETENTION_DAYS} days: start a new export with POST /v1/stacks/{stackId}/exports.`,
  ],
} as const;

/**
 * A download of a ready archive (administrators), over the caller's own session: a signed URL on
 * the console's own site, valid DOWNLOAD_URL_SECONDS. Ask again for a fresh one at any time.
 */
export const downloadExport = async (params: ExportRequest) => {
  const { stack, record } = await requireExport(params.tenantId, params.stackId, params.exportId);
  const refusal = downloadRefusal(record, stack, params.now);
  if (refusal) {
    const [kind, message] = REFUSALS[refusal];
    throw new Refusal(kind, refusal, message);
  }
  const expiresAt = new Date(params.now.getTime() + DOWNLOAD_URL_SECONDS * 1000);
  return {
    exportId: record.exportId,
    url: await signedDownloadUrl(record.objectKey, expiresAt),
    expiresAt: expiresAt.toISOString(),
    sizeBytes: record.sizeBytes ?? null,
    fileName: `${stack.name}-${record.exportId}.tar`,
  };
};
