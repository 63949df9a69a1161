import { catalog } from './catalog.ts';

/** The refusals of exports: each code once, with its kind and its words. */
export const exportsRefusals = catalog({});
