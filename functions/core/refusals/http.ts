import { catalog } from './catalog.ts';

/** The refusals of http: each code once, with its kind and its words. */
export const httpRefusals = catalog({});
