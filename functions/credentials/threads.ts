import {
  type Effort,
  type ProfileEntry,
  pickRouted,
  type RoutedActivity,
  resolveProfile,
  type Unusable,
  unusableReason,
} from '#core/credentials.ts';
import { refuse } from '#core/refusals/index.ts';
import { PROVIDER_CATALOG } from '#ports/config.ts';
import {
  bindThread,
  getCredential,
  getThread,
  type StoredCredential,
  type ThreadBinding,
} from '#store/credentials.ts';
import { getProject } from '#store/projects.ts';
import { getTenant } from '#store/tenants.ts';
import { injectionOf } from './material.ts';

/** The tenant's billing state, which the subscription policy reads. */
export const billingStateOf = async (tenantId: string): Promise<string> =>
  (await getTenant(tenantId))?.billingState ?? 'provisioning';

export const whyUnusable = (stored: StoredCredential, billingState: string): Unusable | undefined =>
  unusableReason({
    archived: stored.archivedAt !== undefined,
    validation: stored.validation.state,
    billingState,
  });

/** What the Dispatcher gets for a Thread: the binding, the Credential's current material to inject. */
const threadAnswer = async (tenantId: string, binding: ThreadBinding, stored: StoredCredential) => ({
  threadId: binding.threadId,
  activity: binding.activity,
  ...(binding.projectId === undefined ? {} : { projectId: binding.projectId }),
  credential: {
    name: stored.name,
    provider: stored.provider,
    kind: stored.kind,
    position: binding.position,
  },
  model: binding.model,
  effort: binding.effort,
  inject: await injectionOf(tenantId, stored),
});
export type ThreadAnswer = Awaited<ReturnType<typeof threadAnswer>>;

/**
 * A Thread already bound answers its binding for good (the model and effort it was bound with),
 * with the bound Credential's current material. It cannot go on once that Credential is deleted,
 * archived, or disabled by the subscription policy (409 `thread_not_resumable` with the reason); a
 * rotation waiting for its validation does not stop it.
 */
export const resumeThread = async (
  tenantId: string,
  binding: ThreadBinding,
  expected: { activity: ThreadBinding['activity']; projectId?: string | undefined },
): Promise<ThreadAnswer> => {
  if (binding.activity !== expected.activity || binding.projectId !== expected.projectId)
    throw refuse('thread_exists', {
      threadId: binding.threadId,
      activity: binding.activity,
      projectId: binding.projectId,
    });
  const stored = await getCredential(tenantId, binding.stackId, binding.credentialName);
  const reason = stored
    ? whyUnusable(stored, await billingStateOf(tenantId))
    : ('credential_deleted' as const);
  if (reason === 'credential_deleted' || reason === 'archived' || reason === 'subscription_policy')
    throw refuse(
      'thread_not_resumable',
      { threadId: binding.threadId, credential: binding.credentialName, reason },
      { extra: { reason, credential: binding.credentialName } },
    );
  return threadAnswer(tenantId, binding, stored as StoredCredential);
};

/**
 * Binds a new Thread (the first binding of a thread id wins) and answers it; when another request
 * bound the same id first, answers that one.
 */
export const bindAndAnswer = async (
  tenantId: string,
  binding: ThreadBinding,
  stored: StoredCredential,
): Promise<ThreadAnswer> => {
  // The material opens before the binding is made, so no binding is left that cannot be answered.
  const answer = await threadAnswer(tenantId, binding, stored);
  if (await bindThread(tenantId, binding)) return answer;
  const won = await getThread(tenantId, binding.stackId, binding.threadId);
  if (!won) throw new Error(`thread ${binding.threadId} was neither bound nor found`);
  return resumeThread(tenantId, won, { activity: binding.activity, projectId: binding.projectId });
};

/** The model and effort for `activity` with this Credential: explicit, else its profile, else the Provider's. */
export const profileFor = (
  stored: StoredCredential,
  activity: ThreadBinding['activity'],
  explicit: ProfileEntry,
): { model: string; effort: Effort } =>
  resolveProfile({
    activity,
    explicit,
    profile: stored.profile,
    providerDefault: PROVIDER_CATALOG[stored.provider].defaults,
  });

/**
 * THE Thread creation: the Project's Credential Route for the activity gives the Credential (the
 * Primary while usable, else the Fallback with its own profile); model and effort resolve and are
 * bound to the Thread for good; the answer says what to inject. The same thread id again answers
 * the same binding.
 */
/** What starting a Thread (or a Guide Session) names: where, which, and the Run's own model and effort. */
export interface ThreadStart {
  tenantId: string;
  stackId: string;
  threadId: string;
  model?: string | undefined;
  effort?: Effort | undefined;
  now: Date;
}

export const createThread = async (
  params: ThreadStart & { projectId: string; activity: RoutedActivity },
): Promise<ThreadAnswer> => {
  const { tenantId, stackId } = params;
  const existing = await getThread(tenantId, stackId, params.threadId);
  if (existing)
    return resumeThread(tenantId, existing, { activity: params.activity, projectId: params.projectId });

  const project = await getProject(tenantId, stackId, params.projectId);
  if (!project) throw refuse('project_not_found', { stackId, projectId: params.projectId });
  const route = project.credentialRoutes[params.activity];
  if (!route)
    throw refuse(
      'no_credential_route',
      { projectId: params.projectId, activity: params.activity },
      { extra: { activity: params.activity } },
    );

  const billingState = await billingStateOf(tenantId);
  const candidates = new Map<string, StoredCredential | undefined>();
  for (const name of [route.primary, ...(route.fallback === undefined ? [] : [route.fallback])])
    if (!candidates.has(name)) candidates.set(name, await getCredential(tenantId, stackId, name));
  const picked = pickRouted(route, (name) => {
    const stored = candidates.get(name);
    return stored ? whyUnusable(stored, billingState) : 'missing';
  });
  if (picked.name === undefined)
    throw refuse(
      'no_usable_credential',
      {
        projectId: params.projectId,
        activity: params.activity,
        reasons: picked.reasons.map((r) => `${r.position} "${r.name}": ${r.reason}`).join('; '),
      },
      { extra: { activity: params.activity, reasons: picked.reasons } },
    );
  const stored = candidates.get(picked.name) as StoredCredential;
  const { model, effort } = profileFor(stored, params.activity, {
    model: params.model,
    effort: params.effort,
  });
  return bindAndAnswer(
    tenantId,
    {
      threadId: params.threadId,
      stackId,
      projectId: params.projectId,
      activity: params.activity,
      credentialName: stored.name,
      position: picked.position,
      model,
      effort,
      createdAt: params.now.toISOString(),
    },
    stored,
  );
};
