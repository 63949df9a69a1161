import { randomBytes } from 'node:crypto';
import { type ExportRecord, exportId, exportView, startRefusal } from '#core/exports.ts';
import { refuse } from '#core/refusals/index.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { newObjectKey } from '#ports/export-storage.ts';
import { endExport, getExport, startExport } from '#store/exports.ts';
import { requireStack } from '../lookups/index.ts';

/**
 * Starts an export of a Stack (administrators): allowed while the Stack runs or is
 * decommissioning, until its teardown; one export at a time per Stack. The Stack's desired state
 * then carries it (`export: { id }`), and its Dispatcher builds and uploads the archive.
 */
export const requestExport = async (params: {
  tenantId: string;
  stackId: string;
  userId: string;
  now: Date;
}) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const running = stack.runningExport
    ? await getExport(params.tenantId, params.stackId, stack.runningExport.exportId)
    : undefined;
  const refusal = startRefusal(stack, running, params.now);
  if (refusal?.code === 'stack_torn_down') throw refuse('stack_torn_down');
  if (refusal?.code === 'export_in_progress')
    throw refuse('export_in_progress', undefined, { extra: { exportId: refusal.exportId } });
  if (running && stack.runningExport && running.status !== 'ready' && running.status !== 'failed')
    // It ran past its limit: it is over, and says why.
    await endExport(params.tenantId, params.stackId, running.exportId, {
      status: 'failed',
      failedAt: params.now.toISOString(),
      failureCode: 'build_timed_out',
    });
  const record: ExportRecord = {
    exportId: exportId(params.now, randomBytes(6).toString('hex')),
    stackId: params.stackId,
    status: 'requested',
    requestedAt: params.now.toISOString(),
    requestedBy: params.userId,
  };
  const started = await startExport(
    params.tenantId,
    { ...record, objectKey: newObjectKey() },
    stack.runningExport?.exportId,
  );
  crashPoint('export.started');
  if (!started) {
    // The Stack changed meanwhile: torn down, or another export started first.
    const now = await requireStack(params.tenantId, params.stackId);
    if (now.lifecycle === 'torn_down') throw refuse('stack_torn_down');
    throw refuse('export_in_progress', undefined, {
      extra: { exportId: now.runningExport?.exportId ?? null },
    });
  }
  return exportView(record, stack, params.now);
};
