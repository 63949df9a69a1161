import { catalog } from './catalog.ts';

/** The refusals of auth: each code once, with its kind and its words. */
export const authRefusals = catalog({});
