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
});
