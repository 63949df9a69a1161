import { refuse } from '#core/refusals/index.ts';
import { logger } from '#ports/logger.ts';
import { recordDispatcherFailure } from '#ports/metrics.ts';
import { clearGuide, updateCredential } from '#store/credentials.ts';
import { requireStackCredential } from './dispatcher-material.ts';

/** A concurrent change of the same Credential (a rotation, an archive) is re-read this many times. */
const ATTEMPTS = 3;

/**
 * THE validation report: the Stack's Dispatcher checked a Credential's material with its provider.
 * The verdict counts only for the material it checked: a version other than the current one means
 * a rotation happened meanwhile (409 `stale_version`: validate the new one). An invalid verdict
 * clears a Guide selection naming the Credential, keeping why (`validation_failed`). The tenant is
 * told our reason (`provider_refused`); the Dispatcher's own words are kept for operators only
 * (stored, logged, counted).
 */
export const reportValidation = async (params: {
  tenantId: string;
  stackId: string;
  name: string;
  version: number;
  outcome: 'valid' | 'invalid';
  reason?: string | undefined;
  now: Date;
}) => {
  const invalid = params.outcome === 'invalid';
  const validation = {
    state: params.outcome,
    ...(invalid ? { reasonCode: 'provider_refused' as const } : {}),
    ...(invalid && params.reason ? { dispatcherReason: params.reason } : {}),
    checkedAt: params.now.toISOString(),
  };
  for (let attempt = 1; ; attempt += 1) {
    const stored = await requireStackCredential(params.tenantId, params.stackId, params.name);
    if (stored.materialVersion !== params.version)
      throw refuse(
        'stale_version',
        { version: params.version, current: stored.materialVersion },
        { extra: { currentVersion: stored.materialVersion } },
      );
    if (await updateCredential(params.tenantId, stored, { validation })) break;
    if (attempt >= ATTEMPTS) throw refuse('credential_changed');
  }
  if (invalid) {
    logger.warn('a Dispatcher found a Credential invalid', {
      tenantId: params.tenantId,
      stackId: params.stackId,
      credential: params.name,
      version: params.version,
      reasonCode: validation.reasonCode,
      dispatcherReason: params.reason ?? null,
    });
    recordDispatcherFailure('credential_validation');
    await clearGuide(params.tenantId, params.stackId, params.name, 'validation_failed', params.now);
  }
  return { name: params.name, version: params.version, validation };
};
