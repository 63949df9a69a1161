import type { Unusable } from '#core/credentials.ts';
import { Refusal } from '#core/refusal.ts';
import { guideClearedReason } from '#core/tenant-reasons.ts';
import { clearGuide, getCredential, getGuideSelection, getThread } from '#store/credentials.ts';
import {
  billingStateOf,
  bindAndAnswer,
  profileFor,
  resumeThread,
  type ThreadAnswer,
  type ThreadStart,
  whyUnusable,
} from './threads.ts';

const unavailable = (message: string, extra: Record<string, unknown>) =>
  new Refusal('conflict', 'guide_unavailable', message, { extra });

/**
 * THE Guide Session start: only the Stack's Guide selection, never another Credential. With none
 * selected: 409 `guide_unavailable` (`none_selected`, and why the last one was cleared). A selected
 * Credential that is gone, archived, failed its validation or is disabled by the subscription policy
 * is cleared, keeping why, and the same 409 says it; one whose new material waits for its
 * validation stays selected (409 `validation_pending`). The profile is the Credential's `guide`
 * entry; the Thread is bound for good like any other.
 */
export const startGuideSession = async (params: ThreadStart): Promise<ThreadAnswer> => {
  const { tenantId, stackId } = params;
  const existing = await getThread(tenantId, stackId, params.threadId);
  if (existing) return resumeThread(tenantId, existing, { activity: 'guide' });

  const selection = await getGuideSelection(tenantId, stackId);
  if (selection.name === undefined) {
    const cleared = selection.cleared && {
      ...selection.cleared,
      reason: guideClearedReason(selection.cleared.reason),
    };
    throw unavailable(
      `This Stack has no Guide Credential selected${cleared ? ` (the last one, "${cleared.name}", was cleared: ${cleared.reason})` : ''}: an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential.`,
      { reason: 'none_selected', ...(cleared ? { cleared } : {}) },
    );
  }
  const name = selection.name;
  const stored = await getCredential(tenantId, stackId, name);
  const reason: Unusable | 'deleted' | undefined = stored
    ? whyUnusable(stored, await billingStateOf(tenantId))
    : 'deleted';
  if (reason === 'validation_pending')
    throw unavailable(
      `The Guide Credential "${name}" waits for its validation by the Dispatcher: try again once it is validated.`,
      { reason, credential: name },
    );
  if (reason !== undefined) {
    await clearGuide(tenantId, stackId, name, reason, params.now);
    throw unavailable(
      `The Guide Credential "${name}" cannot be used (${reason}); the selection is cleared: an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential.`,
      { reason, credential: name, cleared: { name, reason, at: params.now.toISOString() } },
    );
  }
  const credential = stored as NonNullable<typeof stored>;
  const { model, effort } = profileFor(credential, 'guide', { model: params.model, effort: params.effort });
  return bindAndAnswer(
    tenantId,
    {
      threadId: params.threadId,
      stackId,
      activity: 'guide',
      credentialName: name,
      position: 'guide',
      model,
      effort,
      createdAt: params.now.toISOString(),
    },
    credential,
  );
};
