import { catalog } from './catalog.ts';

/** The refusals of billing: each code once, with its kind and its words. */
export const billingRefusals = catalog({});
