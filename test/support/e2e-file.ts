import { afterAll } from 'vitest';
import { releaseServer } from './local-cloud.ts';

/**
 * Run before every e2e file (vitest.config.ts): the shared server a file claimed is given back as
 * soon as its tests are done (after the file's own afterAll hooks, which may still use it), not when
 * Vitest gets round to stopping the file's process.
 */
afterAll(releaseServer);
