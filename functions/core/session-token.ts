import { createHash, randomBytes } from 'node:crypto';
import { SESSION_TOKEN_BYTES } from './sessions.ts';

/*
 * The bearer tokens of ours (session tokens, OAuth states, Dispatcher credentials): 256 random
 * bits, base64url, and only their SHA-256 is ever stored. No I/O; the HTTP side of a session
 * (its cookie, where a request carries it) is functions/http/session-token.ts.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** An opaque random token of 256 bits, base64url. Only its hash is ever stored. */
export const newSessionToken = (): string => randomBytes(SESSION_TOKEN_BYTES).toString('base64url');

export const isWellFormedToken = (token: string): boolean => TOKEN_PATTERN.test(token);

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');
