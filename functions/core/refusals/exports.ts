import { EXPORT_RETENTION_DAYS } from '../exports.ts';
import { catalog } from './catalog.ts';

/**
 * The refusals of exports (an archive's start, its download, its Dispatcher's upload): each code
 * once, with its kind and its words. A torn-down Stack is `stack_torn_down` (the Stacks catalog).
 */
export const exportsRefusals = catalog({
  /** The Stack has no such export (another tenant's, or another Stack's, is not found either). */
  export_not_found: {
    kind: 'not_found',
    words: (facts: { stackId: string; exportId: string }) =>
      `This Stack has no export "${facts.exportId}": start one with POST /v1/stacks/${facts.stackId}/exports.`,
  },
  /** One export at a time per Stack: another is running (`exportId` names it). */
  export_in_progress: {
    kind: 'conflict',
    words:
      'An export of this Stack is under way: follow it with GET /v1/stacks/{stackId}/exports/{exportId}.',
  },
  /** A download asked for before the archive is ready. */
  export_not_ready: {
    kind: 'conflict',
    words: 'The archive is not ready yet: follow GET /v1/stacks/{stackId}/exports/{exportId}.',
  },
  /** A download of an export that failed. */
  export_failed: {
    kind: 'conflict',
    words: 'This export failed (GET shows why): start a new one with POST /v1/stacks/{stackId}/exports.',
  },
  /** A download after the archive's retention. */
  export_expired: {
    kind: 'gone',
    words: `Archives are kept ${EXPORT_RETENTION_DAYS} days: start a new export with POST /v1/stacks/{stackId}/exports.`,
  },
  /** The Dispatcher asks to upload to an export that is no longer running (`status` says what it is). */
  export_not_running: {
    kind: 'conflict',
    words: (facts: { exportId: string; status: string }) =>
      `Export "${facts.exportId}" is ${facts.status}: there is nothing to upload.`,
  },
  /** The Dispatcher reports an upload it never asked part URLs for. */
  nothing_uploaded: {
    kind: 'conflict',
    words: 'No part was uploaded: ask for part URLs first.',
  },
  /** The storage refused to complete the upload (its reason first): the export failed. */
  upload_incomplete: {
    kind: 'conflict',
    words: (facts: { problem: string }) => `${facts.problem}: the export has failed; start a new one.`,
  },
  /** The stored archive is not the size the Dispatcher reported (`storedBytes`): the export failed. */
  size_mismatch: {
    kind: 'conflict',
    words: 'The stored archive is not the size reported: the export has failed.',
  },
});
