import { type BlockingSources, blockingVerdict, type IssueRef } from '#core/blocking.ts';

/** The issue whose blockers the blocking unit tests read: acme/app#100. */
export const self: IssueRef = { repository: 'acme/app', number: 100 };

/** The sources of `self`'s blockers: none, but for what `partial` gives. */
export const sources = (partial: Partial<BlockingSources>): BlockingSources => ({
  issue: self,
  nativeDependencies: [],
  relationshipEdges: [],
  body: '',
  states: {},
  ...partial,
});

/** The blocking verdict on `self` from the sources `partial` gives. */
export const verdictOf = (partial: Partial<BlockingSources>) => blockingVerdict(sources(partial));

/** The open blocker acme/app#`number` as the verdict lists it when every source names it. */
export const openInEverySource = (number: number) => ({
  repository: 'acme/app',
  number,
  state: 'open',
  sources: ['blocked_by_section', 'native_dependency', 'relationship_edge'],
});
