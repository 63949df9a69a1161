import { exportView } from '#core/exports.ts';
import { listRecentExports } from '#store/exports.ts';
import { requireExport, requireStack } from '../lookups/index.ts';

/** An export's status (any member): never the bucket, the object key or the upload. */
/** Which export a request names, and when it asks. */
export interface ExportRequest {
  tenantId: string;
  stackId: string;
  exportId: string;
  now: Date;
}

/** The export a request names, from a handler's session and path. */
export const exportRequest = (
  tenantId: string,
  pathParameters: Record<string, string | undefined>,
  now: Date,
): ExportRequest => ({
  tenantId,
  stackId: pathParameters.stackId ?? '',
  exportId: pathParameters.exportId ?? '',
  now,
});

export const readExport = async (params: ExportRequest) => {
  const { stack, record } = await requireExport(params.tenantId, params.stackId, params.exportId);
  return exportView(record, stack, params.now);
};

/** The most exports a list shows (the newest). */
export const EXPORT_LIST_LIMIT = 20;

/**
 * A Stack's exports (any member), newest first, at most EXPORT_LIST_LIMIT, each exactly as the
 * single read shows it; another tenant's Stack is simply not found.
 */
export const listExports = async (params: { tenantId: string; stackId: string; now: Date }) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const records = await listRecentExports(params.tenantId, params.stackId, EXPORT_LIST_LIMIT);
  return { exports: records.map((record) => exportView(record, stack, params.now)) };
};
