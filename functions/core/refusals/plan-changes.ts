import { catalog } from './catalog.ts';

/** The refusals of plan-changes: each code once, with its kind and its words. */
export const planChangesRefusals = catalog({});
