import type { Unusable } from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
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

const unavailable = (
  facts: { reason: string; name?: string; cleared?: { name: string; reason: string } },
  extra: Record<string, unknown>,
) => refuse('guide_unavailable', facts, { extra });

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
      { reason: 'none_selected', ...(cleared ? { cleared } : {}) },
      { reason: 'none_selected', ...(cleared ? { cleared } : {}) },
    );
  }
  const name = selection.name;
  const stored = await getCredential(tenantId, stackId, name);
  const reason: Unusable | 'deleted' | undefined = stored
    ? whyUnusable(stored, await billingStateOf(tenantId))
    : 'deleted';
  if (reason === 'validation_pending') throw unavailable({ reason, name }, { reason, credential: name });
  if (reason !== undefined) {
    await clearGuide(tenantId, stackId, name, reason, params.now);
    throw unavailable(
      { reason, name },
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
