import { catalog } from './catalog.ts';

/** The refusals of billing (checkout, portal, invoices, closing, money back): each code once, with its kind and its words. */
export const billingRefusals = catalog({
  /** An operator route reached without IAM signing. */
  iam_required: { kind: 'forbidden', words: 'Operators only: sign the request with IAM (SigV4).' },
});
