import { catalog } from './catalog.ts';

/** The refusals of processor: each code once, with its kind and its words. */
export const processorRefusals = catalog({});
