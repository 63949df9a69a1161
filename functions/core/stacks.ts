import { type HostedResources, PLANS, type PlanValue } from './plans.ts';

/** The first Stack's id (the one checkout creates); routes default to it. */
export const FIRST_STACK_ID = 'primary';

/** What a Stack is on the control plane: its Plan, the Plan's caps and resources, and where it runs. */
export interface StackRecord {
  stackId: string;
  name: string;
  plan: PlanValue;
  location: string;
  resources: HostedResources;
  /** `stacks.run_cap`: enforced on the Stack's admission gate, so rendered into its desired state. */
  runCap: number;
  reserveCap: number;
  /** `stacks.watched_projects_cap`: control-plane side only, never rendered to the Stack. */
  watchedProjectsCap: number;
  lifecycle: StackLifecycle;
  createdAt: string;
  /** While decommissioning: when the Stack is torn down. */
  teardownAt?: string;
  /** While decommissioning after a portal cancel: the Stack keeps admitting work until teardown. */
  admissionOpenUntilTeardown?: boolean;
  tornDownAt?: string;
  /** A Plan Change's infrastructure operation on the Stack (from Waiting for Work until it ends). */
  operation?: StackOperation;
}

/**
 * The steps of a Plan Change the Dispatcher carries out, in order: `drain` (admission paused,
 * active work finishes), `backup` (the final backup), `switch` (the replacement is created at the
 * target location; Durable Stack State and Credentials move; workspaces and caches are rebuilt
 * there), `verify` (the replacement reports healthy).
 */
export const OPERATION_STEPS = ['drain', 'backup', 'switch', 'verify'] as const;
export type OperationStep = (typeof OPERATION_STEPS)[number];

export interface StackOperation {
  kind: 'plan_change';
  /** The Plan Change's id. */
  id: string;
  step: OperationStep;
  /** Where and what the replacement is. */
  target: { plan: PlanValue; location: string };
}

export const STACK_LIFECYCLES = ['running', 'decommissioning', 'torn_down'] as const;
export type StackLifecycle = (typeof STACK_LIFECYCLES)[number];

/** The document a Stack's Dispatcher applies: what the Stack must be. */
export interface DesiredState {
  stack: string;
  plan: PlanValue;
  resources: HostedResources;
  run_cap: number;
  admission: 'open' | 'paused' | 'closed';
  lifecycle: StackLifecycle;
  /** Present while decommissioning: when the Stack will be torn down. */
  teardown_at?: string;
  /** Present while a Plan Change runs on the Stack: the step to carry out and the replacement. */
  operation?: {
    id: string;
    kind: 'plan_change';
    step: OperationStep;
    target: { plan: PlanValue; location: string; resources: HostedResources; run_cap: number };
  };
}

/** A Stack on a Plan takes that Plan's caps and hosted resources (spec §3, first Stack). */
export const stackOnPlan = (params: {
  stackId: string;
  name: string;
  plan: PlanValue;
  location: string;
  createdAt: string;
}): StackRecord => {
  const plan = PLANS[params.plan];
  return {
    ...params,
    resources: plan.resources,
    runCap: plan.runCap,
    reserveCap: plan.reserveCap,
    watchedProjectsCap: plan.watchedProjectsCap,
    lifecycle: 'running',
  };
};

/**
 * Renders the desired state: Plan, resources, `run_cap`, admission. The Watched-Projects cap is
 * deliberately absent: it is enforced on the control plane only (spec §2).
 */
export const renderDesiredState = (stack: StackRecord): DesiredState => {
  const admitting =
    stack.lifecycle === 'running' ||
    (stack.lifecycle === 'decommissioning' && stack.admissionOpenUntilTeardown === true);
  const operation = stack.lifecycle === 'torn_down' ? undefined : stack.operation;
  return {
    stack: stack.name,
    plan: stack.plan,
    resources: stack.resources,
    run_cap: stack.runCap,
    // A Plan Change pauses admission of new work; active work is never stopped.
    admission: !admitting ? 'closed' : operation ? 'paused' : 'open',
    lifecycle: stack.lifecycle,
    ...(stack.lifecycle === 'decommissioning' && stack.teardownAt ? { teardown_at: stack.teardownAt } : {}),
    ...(operation
      ? {
          operation: {
            id: operation.id,
            kind: operation.kind,
            step: operation.step,
            target: {
              plan: operation.target.plan,
              location: operation.target.location,
              resources: PLANS[operation.target.plan].resources,
              run_cap: PLANS[operation.target.plan].runCap,
            },
          },
        }
      : {}),
  };
};

/** A Stack entering decommissioning: admission stays open until teardown only after a portal cancel. */
export const decommissioned = (
  stack: StackRecord,
  teardown: { teardownAt: string; admissionOpen: boolean },
): StackRecord => ({
  ...stack,
  lifecycle: 'decommissioning',
  teardownAt: teardown.teardownAt,
  admissionOpenUntilTeardown: teardown.admissionOpen,
});

/** A Stack whose teardown is done: it holds no capacity place any more. */
export const tornDown = (stack: StackRecord, at: string): StackRecord => ({
  ...stack,
  lifecycle: 'torn_down',
  admissionOpenUntilTeardown: false,
  tornDownAt: at,
});
