import { createHash, randomBytes } from 'node:crypto';
import { CONFIRMATION_MINUTES, deletionDecision, routeUses } from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
import {
  clearGuide,
  countThreadsBoundTo,
  deleteCredential as deleteStored,
  updateCredential,
} from '#store/credentials.ts';
import { listProjects } from '#store/projects.ts';
import type { Tenant } from '#store/tenants.ts';
import { requireCredential } from '../lookups/index.ts';
import { credentialStack } from './views.ts';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * THE deletion use case: blocked (409 `credential_in_use`) while any Project's current intake or
 * dispatch route names the Credential, with every Project, activity and position to change;
 * otherwise a first request answers 409 `confirmation_required` with the number of historical
 * Threads bound to it (0 included) and a token, and only a second request carrying that token
 * deletes (those Threads become non-resumable).
 */
export const deleteCredential = async (params: {
  tenant: Tenant;
  stackId: string | undefined;
  name: string;
  confirmationToken: string | undefined;
  now: Date;
}) => {
  const { tenant, now } = params;
  const stack = await credentialStack(tenant.tenantId, params.stackId);
  const credential = await requireCredential(tenant.tenantId, stack.stackId, params.name);
  const projects = await listProjects(tenant.tenantId, stack.stackId);
  const uses = routeUses(
    credential.name,
    projects.map((project) => ({ projectId: project.projectId, routes: project.credentialRoutes })),
  );
  const threadCount = await countThreadsBoundTo(tenant.tenantId, stack.stackId, credential.name);
  const pending = credential.deletion;
  const confirmed =
    params.confirmationToken !== undefined &&
    pending !== undefined &&
    pending.tokenHash === hash(params.confirmationToken) &&
    Date.parse(pending.expiresAt) > now.getTime() &&
    pending.threadCount === threadCount;
  const decision = deletionDecision({ uses, threadCount, confirmed });
  if (decision.kind === 'blocked')
    throw refuse(
      'credential_in_use',
      { name: credential.name, stackId: stack.stackId },
      { extra: { uses: decision.uses } },
    );
  if (decision.kind === 'confirmation_required') {
    // A token that was never issued (or is not the latest one) confirms nothing and keeps the
    // pending confirmation; an expired one, or one issued for fewer Threads, gets a new token.
    if (
      params.confirmationToken !== undefined &&
      (pending === undefined || pending.tokenHash !== hash(params.confirmationToken))
    )
      throw refuse('invalid_confirmation');
    const token = randomBytes(24).toString('base64url');
    const expiresAt = new Date(now.getTime() + CONFIRMATION_MINUTES * 60_000).toISOString();
    if (
      !(await updateCredential(tenant.tenantId, credential, {
        deletion: { tokenHash: hash(token), threadCount, expiresAt },
      }))
    )
      throw refuse('credential_conflict');
    throw refuse(
      'confirmation_required',
      { name: credential.name, threadCount, minutes: CONFIRMATION_MINUTES },
      { extra: { threadCount, confirmationToken: token, expiresAt } },
    );
  }
  if (!(await deleteStored(tenant.tenantId, credential))) throw refuse('credential_conflict');
  await clearGuide(tenant.tenantId, stack.stackId, credential.name, 'deleted', now);
  return { name: credential.name, deleted: true, nonResumableThreads: threadCount };
};
