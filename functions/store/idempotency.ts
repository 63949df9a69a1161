import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { claimVerdict, inProgressUntil } from '#core/idempotency.ts';
import { idempotencyKeyReused, requestInProgress } from '#core/refusals/common.ts';
import { API_FUNCTION_TIMEOUT_SECONDS } from '#ports/config.ts';
import { crashPoint } from '#ports/crash-point.ts';
import { recordCrashLeftover } from '#ports/metrics.ts';
import { db, deleteIf, putIf, tableName, updateIf } from './client.ts';
import { createPut, entity, getOne } from './entity.ts';
import type { TransactItem } from './transact.ts';

/** How long a request's Idempotency-Key is remembered. */
export const IDEMPOTENCY_HOURS = 24;

const RecordSchema = v.object({
  fingerprint: v.string(),
  state: v.picklist(['pending', 'done']),
  /** What the first request decided (e.g. the new Stack's id and the item change it asked for). */
  plan: v.record(v.string(), v.unknown()),
  status: v.optional(v.number()),
  result: v.optional(v.unknown()),
  createdAt: v.string(),
  /** Which request holds a pending claim now (absent on claims made before holders were named). */
  claimId: v.optional(v.string()),
  /** Until when that request may still be running (absent: `createdAt` + the function's timeout). */
  inProgressUntil: v.optional(v.string()),
});
export type IdempotencyRecord = v.InferOutput<typeof RecordSchema>;

/** A tenant's write request by its Idempotency-Key header (kept `IDEMPOTENCY_HOURS`). */
export const idempotencyRecord = entity({
  type: 'idempotency',
  key: (tenantId: string, key: string) => ({ PK: `TENANT#${tenantId}`, SK: `IDEMPOTENCY#${key}` }),
  schema: RecordSchema,
});

/** A claim this request holds: its key, whose it is, and what an earlier holder decided (`{}`: nothing). */
export interface IdempotencyClaim {
  tenantId: string;
  key: string;
  claimId: string;
  plan: Record<string, unknown>;
}

export type ClaimOutcome =
  | { claimed: true; claim: IdempotencyClaim }
  | { claimed: false; status: number | undefined; result: unknown };

/** Only the request that holds the claim may change it. */
const heldBy = (claim: IdempotencyClaim) => ({
  ConditionExpression: '#state = :pending AND #claim = :claim',
  names: { '#state': 'state', '#claim': 'claimId' },
  values: { ':pending': 'pending', ':claim': claim.claimId },
});

/**
 * THE Idempotency-Key claim of a request (add a Stack, confirm a Plan Change): `claimed` the first
 * time, held until the function's timeout (API_FUNCTION_TIMEOUT_SECONDS, the Lambda's own);
 * a finished request's answer to replay; 409 `idempotency_key_reused` for another body; 409
 * `request_in_progress` while the first request may still run. A claim whose holder never finished
 * (the Lambda died, or it answered and left its decision to a retry) is taken over once that time
 * has passed on the Clock, with the decision it recorded. The "done" record is written with the
 * request's effects (idempotencyDoneWrite, in the business transaction).
 */
export const claimIdempotencyKey = async (
  tenantId: string,
  key: string,
  fingerprint: string,
  now: Date,
): Promise<ClaimOutcome> => {
  const claimId = randomUUID();
  const until = inProgressUntil(now, API_FUNCTION_TIMEOUT_SECONDS).toISOString();
  const first = await putIf(
    createPut(idempotencyRecord, [tenantId, key], {
      fingerprint,
      plan: {},
      state: 'pending',
      claimId,
      inProgressUntil: until,
      createdAt: now.toISOString(),
      ttl: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_HOURS * 3600,
    }).Put,
  );
  if (first) return { claimed: true, claim: { tenantId, key, claimId, plan: {} } };
  const existing = await getOne(idempotencyRecord, tenantId, key);
  // Forgotten between the write and the read (released, or expired): claim it afresh.
  if (!existing) return claimIdempotencyKey(tenantId, key, fingerprint, now);
  const verdict = claimVerdict(
    {
      ...existing,
      inProgressUntil:
        existing.inProgressUntil ??
        inProgressUntil(new Date(existing.createdAt), API_FUNCTION_TIMEOUT_SECONDS).toISOString(),
    },
    fingerprint,
    now,
  );
  if (verdict === 'reused') throw idempotencyKeyReused();
  if (verdict === 'replay') return { claimed: false, status: existing.status, result: existing.result };
  if (verdict === 'in_progress') throw requestInProgress();
  // Taken over from the holder read above, and only if no other request took it meanwhile.
  const takenOver = await updateIf({
    Key: idempotencyRecord.key(tenantId, key),
    UpdateExpression: 'SET #claim = :next, #until = :until',
    ConditionExpression:
      existing.claimId === undefined
        ? '#state = :pending AND attribute_not_exists(#claim)'
        : '#state = :pending AND #claim = :seen',
    ExpressionAttributeNames: { '#state': 'state', '#claim': 'claimId', '#until': 'inProgressUntil' },
    ExpressionAttributeValues: {
      ':pending': 'pending',
      ':next': claimId,
      ':until': until,
      ...(existing.claimId === undefined ? {} : { ':seen': existing.claimId }),
    },
  });
  // Another request took it over, finished it, or it was released: decide again from what is there.
  if (!takenOver) return claimIdempotencyKey(tenantId, key, fingerprint, now);
  // Its holder stopped midway (its function died or timed out): a trace an operator can count.
  recordCrashLeftover('idempotency_claim_taken_over');
  return { claimed: true, claim: { tenantId, key, claimId, plan: existing.plan } };
};

/**
 * THE Idempotency-Key protocol of a request (claim, replay, try, release): without a key `work`
 * just runs. With one, the key is claimed (claimIdempotencyKey); a finished request's answer is
 * replayed (through `replay` when the use case has more to do for it); otherwise `work` runs
 * holding the claim (it writes idempotencyDoneWrite with its effects). When `work` fails the claim
 * is released so the same key may be tried again, or, when `keepOnFailure` says its decision must
 * stay (an outcome it could not learn), left for a retry to take over at once.
 */
export const withIdempotencyKey = async <T>(
  request: {
    tenantId: string;
    key: string | undefined;
    fingerprint: string;
    now: Date;
    /** Which request this is, for the crash run's kill point (`add-stack`, `plan-change`). */
    label: string;
  },
  work: (claim: IdempotencyClaim | undefined) => Promise<T>,
  options: { replay?: (result: T) => Promise<T>; keepOnFailure?: () => boolean } = {},
): Promise<T> => {
  if (!request.key) return work(undefined);
  const prior = await claimIdempotencyKey(request.tenantId, request.key, request.fingerprint, request.now);
  if (!prior.claimed) return options.replay ? options.replay(prior.result as T) : (prior.result as T);
  crashPoint('idempotency.claimed', request.label);
  try {
    return await work(prior.claim);
  } catch (error) {
    if (options.keepOnFailure?.()) await leaveIdempotencyKey(prior.claim, request.now);
    else await releaseIdempotencyKey(prior.claim);
    throw error;
  }
};

/** The write that records a request's outcome with its other effects (one transaction; its holder only). */
export const idempotencyDoneWrite = (
  claim: IdempotencyClaim,
  status: number,
  result: unknown,
): TransactItem => {
  const held = heldBy(claim);
  return {
    Update: {
      TableName: tableName(),
      Key: idempotencyRecord.key(claim.tenantId, claim.key),
      UpdateExpression: 'SET #state = :done, #status = :status, #result = :result REMOVE #until',
      ConditionExpression: held.ConditionExpression,
      ExpressionAttributeNames: {
        ...held.names,
        '#status': 'status',
        '#result': 'result',
        '#until': 'inProgressUntil',
      },
      ExpressionAttributeValues: { ...held.values, ':done': 'done', ':status': status, ':result': result },
    },
  };
};

/** Forgets a claim whose request failed before any effect, so the same key can be tried again. */
export const releaseIdempotencyKey = async (claim: IdempotencyClaim): Promise<void> => {
  const held = heldBy(claim);
  await deleteIf({
    Key: idempotencyRecord.key(claim.tenantId, claim.key),
    ConditionExpression: held.ConditionExpression,
    ExpressionAttributeNames: held.names,
    ExpressionAttributeValues: held.values,
  });
};

/**
 * Lets go of a claim whose request answered without finishing but whose decision must stay (an
 * outcome it could not learn): a retry with the key takes it over at once and carries on.
 */
export const leaveIdempotencyKey = async (claim: IdempotencyClaim, now: Date): Promise<void> => {
  const held = heldBy(claim);
  await updateIf({
    Key: idempotencyRecord.key(claim.tenantId, claim.key),
    UpdateExpression: 'SET #until = :now',
    ConditionExpression: held.ConditionExpression,
    ExpressionAttributeNames: { ...held.names, '#until': 'inProgressUntil' },
    ExpressionAttributeValues: { ...held.values, ':now': now.toISOString() },
  });
};

/** Remembers what this request decided, so a retry after a crash carries on with the same decision. */
export const recordIdempotencyPlan = async (
  claim: IdempotencyClaim,
  plan: Record<string, unknown>,
): Promise<void> => {
  const held = heldBy(claim);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: idempotencyRecord.key(claim.tenantId, claim.key),
      UpdateExpression: 'SET #plan = :plan',
      ConditionExpression: held.ConditionExpression,
      ExpressionAttributeNames: { ...held.names, '#plan': 'plan' },
      ExpressionAttributeValues: { ...held.values, ':plan': plan },
    }),
  );
};
