import { catalog } from './catalog.ts';

/** The refusals of tenants: each code once, with its kind and its words. */
export const tenantsRefusals = catalog({});
