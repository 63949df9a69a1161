import { randomBytes } from 'node:crypto';
import { CREDENTIAL_OVERLAP_SECONDS, DISPATCHER_CREDENTIAL_PREFIX } from '#core/dispatcher.ts';
import { refuse } from '#core/refusals/index.ts';
import { hashSessionToken } from '#core/session-token.ts';
import { issueDispatcherCredential } from '#store/stacks.ts';
import { requireStack } from '../lookups/index.ts';

/**
 * THE Dispatcher credential use case: issues a new credential for one Stack and answers its secret
 * once (only its hash is stored). The previous one keeps working for an hour, so the Dispatcher can
 * switch without a gap. A torn-down Stack gets none.
 */
export const issueStackCredential = async (params: { tenantId: string; stackId: string; now: Date }) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  if (stack.lifecycle === 'torn_down') throw refuse('stack_torn_down');
  const credential = `${DISPATCHER_CREDENTIAL_PREFIX}${randomBytes(32).toString('base64url')}`;
  const credentialId = randomBytes(6).toString('hex');
  const retiresAt = new Date(params.now.getTime() + CREDENTIAL_OVERLAP_SECONDS * 1000);
  const issued = await issueDispatcherCredential({
    tenantId: params.tenantId,
    stackId: params.stackId,
    credentialId,
    secretHash: hashSessionToken(credential),
    previousHash: stack.dispatcherCredentialHash,
    now: params.now,
    retiresAt,
  });
  if (!issued) throw refuse('credential_rotation_in_progress');
  return {
    credentialId,
    credential,
    issuedAt: params.now.toISOString(),
    previousCredentialValidUntil: stack.dispatcherCredentialHash ? retiresAt.toISOString() : null,
  };
};
