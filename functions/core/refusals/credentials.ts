import { CREDENTIAL_NAME_RULE } from '../credentials.ts';
import { catalog } from './catalog.ts';

const SELECT_GUIDE = 'an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential';

/**
 * The refusals of Credentials (their provisioning, routes, Guide, Threads, validation, deletion):
 * each code once, with its kind and its words. A torn-down Stack is `stack_torn_down` (the Stacks
 * catalog).
 */
export const credentialsRefusals = catalog({
  /** The Stack has no such Credential; `listedBy` says where the caller finds the names. */
  credential_not_found: {
    kind: 'not_found',
    words: (facts: { name: string; listedBy: string }) =>
      `This Stack has no Credential "${facts.name}": ${facts.listedBy}.`,
  },
  /** A name of no valid shape (`name` absent), or a word the API keeps for a new Credential. */
  invalid_credential_name: {
    kind: 'invalid',
    field: 'name',
    words: (facts: { reserved?: string }) =>
      facts.reserved === undefined
        ? `A Credential name is ${CREDENTIAL_NAME_RULE}.`
        : `"${facts.reserved}" is a word the API keeps (GET /v1/credentials/${facts.reserved}); choose another name.`,
  },
  /** The Provider does not take this kind (`accepted` lists those it takes). */
  kind_not_accepted: {
    kind: 'invalid',
    field: 'kind',
    words: (facts: { providerName: string; accepted: string; kind: string }) =>
      `${facts.providerName} accepts ${facts.accepted}; "${facts.kind}" is not one of them.`,
  },
  /** A subscription kind spends the administrator's own subscription: their consent is required. */
  consent_required: {
    kind: 'invalid',
    field: 'consent',
    words: (facts: { kind: string }) =>
      `A ${facts.kind} Credential spends your personal subscription with the provider: send the administrator's consent as consent: { "textVersion": "<the version of the consent text shown> " }.`,
  },
  consent_not_expected: {
    kind: 'invalid',
    field: 'consent',
    words: 'An api_key needs no consent (its usage is metered by the provider): leave consent out.',
  },
  /** The consent was given to another version of its text (`currentTextVersion`). */
  consent_version_unknown: {
    kind: 'invalid',
    field: 'consent',
    words: (facts: { current: string; given: string }) =>
      `The consent text is at version "${facts.current}", not "${facts.given}": show the current text (GET /v1/credentials/catalog) and send consent: { "textVersion": "${facts.current}" }.`,
  },
  ambient_not_available: {
    kind: 'conflict',
    words:
      "An ambient Credential uses the host's own runtime login, so it is available only on a Local Stack whose Dispatcher reports the host Executor. Use another kind on this Stack.",
  },
  material_required: {
    kind: 'invalid',
    field: 'material',
    words: (facts: { kind: string }) =>
      `A ${facts.kind} Credential needs its material: send it as "material".`,
  },
  material_not_expected: {
    kind: 'invalid',
    field: 'material',
    words: 'An ambient Credential stores no authentication value: leave "material" out.',
  },
  provider_change: {
    kind: 'conflict',
    words:
      'A Credential keeps the Provider it was created with: choose a new name for a Credential of another Provider.',
  },
  invalid_auth_file: {
    kind: 'invalid',
    field: 'material',
    words: (facts: { problem: string }) => `The auth file was refused: ${facts.problem}.`,
  },
  /** The Credential changed between its read and its write (a provisioning, an archive, a deletion). */
  credential_conflict: {
    kind: 'conflict',
    words: 'This Credential changed meanwhile: read it again (GET /v1/credentials), then try again.',
  },
  /** The Dispatcher's validation report met a Credential that kept changing. */
  credential_changed: { kind: 'conflict', words: 'The Credential kept changing meanwhile: report again.' },
  /** A validation report for material that was rotated since (`currentVersion`). */
  stale_version: {
    kind: 'conflict',
    words: (facts: { version: number; current: number }) =>
      `Version ${facts.version} is not the Credential's current material (version ${facts.current}): it was rotated; read it again and validate the new one.`,
  },
  /** Credential Routes name the Credential (`uses` lists them). */
  credential_in_use: {
    kind: 'conflict',
    words: (facts: { name: string; stackId: string }) =>
      `Credential Routes name "${facts.name}": change each one listed (PUT /v1/stacks/${facts.stackId}/projects/{projectId}/credential-routes), then delete it.`,
  },
  /** A deletion's confirmation token is not the latest one issued. */
  invalid_confirmation: {
    kind: 'invalid',
    words:
      'This confirmation token is not the one issued for this Credential: use the latest token, or ask again without one.',
  },
  /** A deletion waits for its confirmation (`confirmationToken`, `threadCount`, `expiresAt`). */
  confirmation_required: {
    kind: 'conflict',
    words: (facts: { name: string; threadCount: number; minutes: number }) =>
      `${facts.threadCount === 0 ? `No Thread is bound to "${facts.name}": none becomes non-resumable.` : `${facts.threadCount} Thread${facts.threadCount === 1 ? ' is' : 's are'} bound to "${facts.name}" and will no longer be resumable.`} Repeat the request with confirmationToken=<the token> within ${facts.minutes} minutes to delete it.`,
  },
  /** A route's Fallback is its Primary. */
  invalid_route: {
    kind: 'invalid',
    words: (facts: { activity: string }) =>
      `The ${facts.activity} route's Fallback must differ from its Primary.`,
  },
  /** An archived Credential named in a route. */
  credential_archived: {
    kind: 'conflict',
    words: (facts: { name: string; activity: string; position: string }) =>
      `"${facts.name}" is archived: it cannot be the ${facts.activity} ${facts.position}.`,
  },
  /** A Credential that cannot be the Guide Credential (`reason`). */
  credential_unusable: {
    kind: 'conflict',
    words: (facts: { name: string; reason: string }) =>
      `"${facts.name}" cannot be the Guide Credential: it is ${facts.reason === 'archived' ? 'archived' : 'refused by its validation'}. Provision it again or choose another.`,
  },
  /**
   * No Guide Session can start (`reason`): none selected (and why the last one was cleared), the
   * selected one waits for its validation, or it cannot be used and the selection is cleared.
   */
  guide_unavailable: {
    kind: 'conflict',
    words: (facts: { reason: string; name?: string; cleared?: { name: string; reason: string } }) => {
      if (facts.reason === 'none_selected')
        return `This Stack has no Guide Credential selected${facts.cleared ? ` (the last one, "${facts.cleared.name}", was cleared: ${facts.cleared.reason})` : ''}: ${SELECT_GUIDE}.`;
      if (facts.reason === 'validation_pending')
        return `The Guide Credential "${facts.name}" waits for its validation by the Dispatcher: try again once it is validated.`;
      return `The Guide Credential "${facts.name}" cannot be used (${facts.reason}); the selection is cleared: ${SELECT_GUIDE}.`;
    },
  },
  /** A Thread id already bound to another activity or Project. */
  thread_exists: {
    kind: 'conflict',
    words: (facts: { threadId: string; activity: string; projectId?: string | undefined }) =>
      `Thread "${facts.threadId}" is already bound to ${facts.activity === 'guide' ? 'the Guide' : `Project "${facts.projectId}" for ${facts.activity}`}: use a new thread id.`,
  },
  /** A Thread whose Credential was deleted, archived or disabled (`reason`, `credential`). */
  thread_not_resumable: {
    kind: 'conflict',
    words: (facts: { threadId: string; credential: string; reason: string }) =>
      `Thread "${facts.threadId}" is bound to Credential "${facts.credential}", which ${facts.reason === 'credential_deleted' ? 'was deleted' : facts.reason === 'archived' ? 'is archived' : 'the subscription policy disables'}: start a new Thread.`,
  },
  /** The Project has no Credential Route for the activity. */
  no_credential_route: {
    kind: 'conflict',
    words: (facts: { projectId: string; activity: string }) =>
      `Project "${facts.projectId}" has no Credential Route for ${facts.activity}: an administrator sets one with PUT /v1/stacks/{stackId}/projects/{projectId}/credential-routes.`,
  },
  /** No Credential of the Project's route is usable now (`reasons` says why, each). */
  no_usable_credential: {
    kind: 'conflict',
    words: (facts: { projectId: string; activity: string; reasons: string }) =>
      `No Credential of Project "${facts.projectId}"'s ${facts.activity} route is usable now: ${facts.reasons}.`,
  },
});
