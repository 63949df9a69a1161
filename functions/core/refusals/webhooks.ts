import { catalog } from './catalog.ts';

/** The refusals of webhooks: each code once, with its kind and its words. */
export const webhooksRefusals = catalog({});
