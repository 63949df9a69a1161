import { catalog } from './catalog.ts';

/** The refusals of credentials: each code once, with its kind and its words. */
export const credentialsRefusals = catalog({});
