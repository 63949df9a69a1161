/**
 * The blocking verdict: one rule for every Stack. An issue is blocked while any blocker named by
 * any source is open, and released once every named blocker has closed. The three sources are
 * equal: a native dependency on the code host, an issue-relationship edge, and a reference in the
 * issue body's `## Blocked by` section. Pure: the caller (a Dispatcher) supplies the sources and
 * the states it knows.
 */

export type IssueState = 'open' | 'closed';

/** An issue, by repository (`owner/name`, compared case-insensitively) and number. */
export interface IssueRef {
  repository: string;
  number: number;
}

export interface NamedBlocker extends IssueRef {
  state: IssueState;
}

export interface BlockingSources {
  /** The issue asked about; its repository resolves short references (`#12`) in the body. */
  issue: IssueRef;
  nativeDependencies: NamedBlocker[];
  relationshipEdges: NamedBlocker[];
  /** The issue's body (markdown); only its `## Blocked by` section counts. */
  body: string;
  /** States of issues the body names, keyed `owner/name#number` (for references no other source carries). */
  states: Record<string, IssueState>;
}

export type BlockerSource = 'native_dependency' | 'relationship_edge' | 'blocked_by_section';

export interface OpenBlocker extends IssueRef {
  /** `unknown`: the body names it and no source said its state; it counts as open until known. */
  state: 'open' | 'unknown';
  sources: BlockerSource[];
}

export interface BlockingVerdict {
  blocked: boolean;
  openBlockers: OpenBlocker[];
}

export const issueKey = (ref: IssueRef): string => `${ref.repository.toLowerCase()}#${ref.number}`;

const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const BLOCKED_BY = /^blocked\s+by\s*:?$/i;
/** `#12`, `owner/name#12`, or an issue URL on the code host. */
const REFERENCE =
  /(?:https?:\/\/[^\s/]+\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)\/issues\/(\d+))|(?:(?<![\w/])([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)?#(\d+)\b)/g;

/**
 * The references in the body's `## Blocked by` section(s), as documented in docs/dispatcher.md:
 * - the section starts at a level-2 heading "Blocked by" (any case, optional colon) and ends at
 *   the next heading of level 1 or 2; other sections are ignored, and so are deeper headings'
 *   titles inside it (their lines still count);
 * - fenced code blocks (``` or ~~~) and inline code (`…`) are ignored;
 * - `#12` means the issue's own repository; `owner/name#12` and issue URLs name any repository
 *   (cross-repository blockers count like any other); the issue itself is never its own blocker;
 * - duplicates count once; numbers must be positive.
 */
export const blockedByReferences = (body: string, self: IssueRef): IssueRef[] => {
  const found = new Map<string, IssueRef>();
  let inSection = false;
  let fence: string | undefined;
  for (const line of body.split(/\r?\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch?.[1] && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length)
        fence = undefined;
      continue;
    }
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1] && heading[1].length <= 2) {
      inSection = heading[1].length === 2 && BLOCKED_BY.test(heading[2] ?? '');
      continue;
    }
    if (!inSection) continue;
    const text = line.replace(/`[^`]*`/g, ' ');
    for (const match of text.matchAll(REFERENCE)) {
      const repository = match[1] ?? match[3] ?? self.repository;
      const number = Number(match[2] ?? match[4]);
      if (!Number.isSafeInteger(number) || number <= 0) continue;
      const ref = { repository, number };
      if (issueKey(ref) === issueKey(self)) continue;
      found.set(issueKey(ref), ref);
    }
  }
  return [...found.values()];
};

/** The verdict: blocked while any blocker any source names is open (or of unknown state). */
export const blockingVerdict = (sources: BlockingSources): BlockingVerdict => {
  const blockers = new Map<
    string,
    { ref: IssueRef; state: IssueState | 'unknown'; sources: Set<BlockerSource> }
  >();
  const states = new Map(Object.entries(sources.states).map(([key, state]) => [key.toLowerCase(), state]));
  const add = (ref: IssueRef, state: IssueState | undefined, source: BlockerSource) => {
    const key = issueKey(ref);
    if (key === issueKey(sources.issue)) return;
    const entry = blockers.get(key) ?? { ref, state: 'unknown' as const, sources: new Set<BlockerSource>() };
    // Any source that says open keeps it open; a known state beats unknown.
    const known = state ?? states.get(key);
    if (known === 'open' || entry.state === 'open') entry.state = 'open';
    else if (known === 'closed') entry.state = 'closed';
    entry.sources.add(source);
    blockers.set(key, entry);
  };
  for (const blocker of sources.nativeDependencies) add(blocker, blocker.state, 'native_dependency');
  for (const blocker of sources.relationshipEdges) add(blocker, blocker.state, 'relationship_edge');
  for (const ref of blockedByReferences(sources.body, sources.issue))
    add(ref, undefined, 'blocked_by_section');
  const openBlockers: OpenBlocker[] = [...blockers.values()]
    .filter((entry) => entry.state !== 'closed')
    .map((entry) => ({
      repository: entry.ref.repository,
      number: entry.ref.number,
      state: entry.state === 'open' ? 'open' : 'unknown',
      sources: [...entry.sources].sort(),
    }));
  openBlockers.sort((a, b) => issueKey(a).localeCompare(issueKey(b)));
  return { blocked: openBlockers.length > 0, openBlockers };
};
