import { catalog } from './catalog.ts';

/** The refusals of Stacks, their Dispatcher and Projects: each code once, with its kind and its words. */
export const stacksRefusals = catalog({
  /**
   * The Stack has no such Project (never registered, or removed, even meanwhile). One text wherever
   * a Project is named (a Thread, its routes, its removal).
   */
  project_not_found: {
    kind: 'not_found',
    words: (facts: { stackId: string; projectId: string }) =>
      `This Stack has no Project "${facts.projectId}": GET /v1/stacks/${facts.stackId}/projects lists them.`,
  },
  /**
   * The Stack has been torn down: nothing can be done with it any more (an export started or
   * downloaded, a Credential provisioned, a Dispatcher credential issued). One code and one text
   * for the condition wherever it is met; `stack_not_running` is the wider "decommissioning or
   * torn down".
   */
  stack_torn_down: {
    kind: 'conflict',
    words:
      'This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it.',
  },
  /**
   * The Stack is not running (decommissioning or torn down): nothing new is done with it (a Project
   * registered, a Plan changed). `action` says what was asked.
   */
  stack_not_running: {
    kind: 'conflict',
    words: (facts: { lifecycle: string; action: string }) =>
      facts.lifecycle === 'running'
        ? // It was not running when the request was checked, and changed meanwhile.
          'This Stack changed meanwhile: read it again (GET /v1/stacks).'
        : `This Stack is ${facts.lifecycle}: only a running Stack can ${facts.action}.`,
  },
  /**
   * The tenant's billing is past-due or suspended: nothing new until it is paid (a Stack added, a
   * Plan changed). `next` says what the tenant does after paying.
   */
  billing_overdue: {
    kind: 'conflict',
    words: (facts: { state: string; next: string }) =>
      `Billing is ${facts.state}: pay the open invoice or update the payment method in the billing portal (POST /v1/billing/portal), then ${facts.next}.`,
  },
  /**
   * The processor does not report the subscription active (even while our state says active):
   * nothing new meanwhile (a Stack added, a Plan changed). `what` says what waits for it.
   */
  subscription_not_active: {
    kind: 'conflict',
    words: (facts: { what: string }) =>
      `The payment processor does not report the subscription active now (a payment may be due: see the billing portal, POST /v1/billing/portal): ${facts.what} while it is.`,
  },
  /** The tenant has no such Stack. */
  stack_not_found: {
    kind: 'not_found',
    words: (facts: { stackId: string }) =>
      `This tenant has no Stack "${facts.stackId}": GET /v1/stacks lists its Stacks.`,
  },
  /** A Stack is added before the first checkout was paid. */
  no_subscription: {
    kind: 'conflict',
    words: 'Stacks can be added once the first checkout is paid (POST /v1/billing/checkout).',
  },
  /** The tenant has its Stack Cap of Stacks (`stackCap`). */
  stack_cap_reached: {
    kind: 'conflict',
    words: (facts: { stackCap: number; counted: number }) =>
      `A tenant can have ${facts.stackCap} Stacks: this one has ${facts.counted}.`,
  },
  /** Another change of the subscription's items kept its lease past the wait (`retryAfterSeconds`). */
  subscription_busy: {
    kind: 'unavailable',
    words: (facts: { retryAfterSeconds: number }) =>
      `Another change of this subscription is being made: nothing was added or charged. Try again in ${facts.retryAfterSeconds} s (with the same Idempotency-Key, if you sent one).`,
  },
  /** The tenant kept changing while a Stack was added. */
  add_conflict: {
    kind: 'conflict',
    words:
      'The tenant changed meanwhile (another Stack was added, its place was taken, or billing changed): read GET /v1/stacks, then try again.',
  },
  /** The processor could not estimate an added Stack's cost. */
  estimate_unavailable: {
    kind: 'upstream_failed',
    words:
      'The payment processor could not estimate the cost now, so no figure is shown; try again in a moment.',
  },
  /** The Dispatcher reports a version it was not given, or the Stack changed while it reported. */
  unknown_version: {
    kind: 'conflict',
    words: (facts: { problem?: string }) =>
      facts.problem === undefined
        ? 'The Stack changed meanwhile: read the desired state again.'
        : `${facts.problem}: report the version you applied.`,
  },
  /** Another rotation of the Stack's Dispatcher credential came first. */
  credential_rotation_in_progress: {
    kind: 'conflict',
    words: 'Another rotation of this credential just happened: retry.',
  },
  /** The Stack watches its Plan's cap of Projects (`watchedProjectsCap`). */
  watched_projects_cap_reached: {
    kind: 'conflict',
    words: (facts: { stackId: string; cap: number }) =>
      `This Stack watches ${facts.cap} Projects, its Plan's cap: remove one with its Remove button, or change the Stack to a larger Plan (DELETE /v1/stacks/${facts.stackId}/projects/{projectId}).`,
  },
  /** The repository is already a Project of the Stack. */
  project_exists: {
    kind: 'conflict',
    words: (facts: { repository: string }) =>
      `The repository ${facts.repository} is already a Project of this Stack.`,
  },
});
