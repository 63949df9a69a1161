import { DOWNLOAD_URL_SECONDS, downloadRefusal } from '#core/exports.ts';
import { refuse } from '#core/refusals/index.ts';
import { signedDownloadUrl } from '#ports/export-storage.ts';
import { requireExport } from '../lookups/index.ts';
import type { ExportRequest } from './read.ts';

/**
 * A download of a ready archive (administrators), over the caller's own session: a signed URL on
 * the console's own site, valid DOWNLOAD_URL_SECONDS. Ask again for a fresh one at any time.
 */
export const downloadExport = async (params: ExportRequest) => {
  const { stack, record } = await requireExport(params.tenantId, params.stackId, params.exportId);
  const refusal = downloadRefusal(record, stack, params.now);
  if (refusal) throw refuse(refusal);
  const expiresAt = new Date(params.now.getTime() + DOWNLOAD_URL_SECONDS * 1000);
  return {
    exportId: record.exportId,
    url: await signedDownloadUrl(record.objectKey, expiresAt),
    expiresAt: expiresAt.toISOString(),
    sizeBytes: record.sizeBytes ?? null,
    fileName: `${stack.name}-${record.exportId}.tar`,
  };
};
