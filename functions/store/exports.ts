import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { EXPORT_STATUSES, type ExportRecord } from '#core/exports.ts';
import { EXPORT_FAILURES, type ExportFailure } from '#core/tenant-reasons.ts';
import { db, tableName, transactIf, updateIf } from './client.ts';
import { createPut, entity, getOne } from './entity.ts';
import { stack } from './stacks.ts';

/**
 * Export archives of a Stack: one item per export under the tenant
 * (`EXPORT#<stackId>#<exportId>`), and the Stack's pointer to its running export
 * (`runningExport`, rendered into the desired state). The object key and the multipart upload's
 * id are kept here only: no view shows them.
 */
const ExportSchema = v.object({
  exportId: v.string(),
  stackId: v.string(),
  status: v.picklist(EXPORT_STATUSES),
  requestedAt: v.string(),
  requestedBy: v.string(),
  readyAt: v.optional(v.string()),
  failedAt: v.optional(v.string()),
  sizeBytes: v.optional(v.number()),
  /** Why it failed, as the tenant is told. */
  failureCode: v.optional(v.picklist(EXPORT_FAILURES)),
  /** The Dispatcher's own words when it reported the failure: for operators only, never shown. */
  dispatcherReason: v.optional(v.string()),
  /** Free text kept by exports failed before `failureCode` (never shown: it may quote a Dispatcher). */
  failureReason: v.optional(v.string()),
  /** The archive's object key in the exports bucket: opaque and random (never shown). */
  objectKey: v.string(),
  /** The multipart upload the Dispatcher's parts go to (once the first part URL was asked for). */
  uploadId: v.optional(v.string()),
});
export type StoredExport = v.InferOutput<typeof ExportSchema>;

/** An export archive of one of the tenant's Stacks (its id sorts by the request time). */
export const stackExport = entity({
  type: 'export',
  key: (tenantId: string, stackId: string, exportId: string) => ({
    PK: `TENANT#${tenantId}`,
    SK: `EXPORT#${stackId}#${exportId}`,
  }),
  schema: ExportSchema,
  collection: (tenantId: string, stackId: string) => ({
    PK: `TENANT#${tenantId}`,
    prefix: `EXPORT#${stackId}#`,
  }),
});

export const getExport = (tenantId: string, stackId: string, exportId: string) =>
  getOne(stackExport, tenantId, stackId, exportId);

/**
 * A Stack's newest exports, newest first, at most `limit`: one query page read backwards (an
 * export id sorts by its request time), so a Stack's long history costs nothing extra.
 */
export const listRecentExports = async (
  tenantId: string,
  stackId: string,
  limit: number,
): Promise<StoredExport[]> => {
  const exports = stackExport.collection(tenantId, stackId);
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': exports.PK,
        ':prefix': exports.prefix,
      },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (page.Items ?? []).map((item) => stackExport.parse(item));
};

/**
 * Records a new export and points the Stack at it, in one transaction: the Stack must exist, not
 * be torn down, and still have the running export read (none, or one that has ended or gone
 * stale); its desired-state version goes up, so its Dispatcher sees the work.
 */
export const startExport = (
  tenantId: string,
  record: ExportRecord & { objectKey: string },
  previous: string | undefined,
): Promise<boolean> =>
  transactIf([
    createPut(stackExport, [tenantId, record.stackId, record.exportId], { tenantId, ...record }),
    {
      Update: {
        TableName: tableName(),
        Key: stack.key(tenantId, record.stackId),
        UpdateExpression: 'SET runningExport = :running ADD desiredVersion :one',
        ConditionExpression: `attribute_exists(PK) AND lifecycle <> :tornDown AND ${
          previous === undefined
            ? 'attribute_not_exists(runningExport)'
            : '(attribute_not_exists(runningExport) OR runningExport.exportId = :previous)'
        }`,
        ExpressionAttributeValues: {
          ':running': { exportId: record.exportId, requestedAt: record.requestedAt },
          ':one': 1,
          ':tornDown': 'torn_down',
          ...(previous === undefined ? {} : { ':previous': previous }),
        },
      },
    },
  ]);

/** The multipart upload is made: the export is building. Only the first one is kept. */
export const recordUpload = (
  tenantId: string,
  stackId: string,
  exportId: string,
  uploadId: string,
): Promise<boolean> =>
  updateIf({
    Key: stackExport.key(tenantId, stackId, exportId),
    UpdateExpression: 'SET uploadId = :upload, #status = :building',
    ConditionExpression: 'attribute_exists(PK) AND #status = :requested AND attribute_not_exists(uploadId)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':upload': uploadId,
      ':building': 'building',
      ':requested': 'requested',
    },
  });

/**
 * Ends a running export (ready with its size, or failed with the reason); false when it had ended
 * already. Then the Stack's pointer is removed, if it still names this export.
 */
export const endExport = async (
  tenantId: string,
  stackId: string,
  exportId: string,
  end:
    | { status: 'ready'; readyAt: string; sizeBytes: number }
    | { status: 'failed'; failedAt: string; failureCode: ExportFailure; dispatcherReason?: string },
): Promise<boolean> => {
  const { status, ...fields } = end;
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {
    ':status': status,
    ':requested': 'requested',
    ':building': 'building',
  };
  const sets = ['#status = :status'];
  for (const [index, [name, value]] of Object.entries(fields).entries()) {
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  }
  const ended = await updateIf({
    Key: stackExport.key(tenantId, stackId, exportId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: 'attribute_exists(PK) AND #status IN (:requested, :building)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  // A crash before this leaves the pointer naming an ended export: the next start replaces it.
  await updateIf({
    Key: stack.key(tenantId, stackId),
    UpdateExpression: 'REMOVE runningExport',
    ConditionExpression: 'runningExport.exportId = :id',
    ExpressionAttributeValues: { ':id': exportId },
  });
  return ended;
};
