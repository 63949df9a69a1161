import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blockedByReferences, type IssueState, issueKey } from '#core/blocking.ts';
import { openInEverySource, self, verdictOf } from '../support/blocking-sources.ts';

describe('the blocking verdict: every source gives the same verdict', () => {
  it.each(['native', 'edge', 'body'] as const)(
    'an open blocker named only by the %s source blocks; closed, it releases',
    (where) => {
      for (const state of ['open', 'closed'] as const) {
        const blocker = { repository: 'acme/app', number: 7, state };
        const verdict = verdictOf({
          nativeDependencies: where === 'native' ? [blocker] : [],
          relationshipEdges: where === 'edge' ? [blocker] : [],
          body: where === 'body' ? '## Blocked by\n- #7\n' : '',
          states: where === 'body' ? { 'acme/app#7': state } : {},
        });
        expect(verdict.blocked).toBe(state === 'open');
      }
    },
  );

  it('blocked while any blocker any source names is open; released when all have closed', () => {
    const verdict = verdictOf({
      nativeDependencies: [{ repository: 'acme/app', number: 1, state: 'closed' }],
      relationshipEdges: [{ repository: 'acme/lib', number: 2, state: 'closed' }],
      body: '## Blocked by\n#3, acme/other#4\n',
      states: { 'acme/app#3': 'closed', 'ACME/other#4': 'open' },
    });
    expect(verdict).toEqual({
      blocked: true,
      openBlockers: [{ repository: 'acme/other', number: 4, state: 'open', sources: ['blocked_by_section'] }],
    });
  });

  it('a body reference whose state no source gives counts as open (unknown) until it is known', () => {
    expect(verdictOf({ body: '## Blocked by\n- #9' }).openBlockers).toEqual([
      { repository: 'acme/app', number: 9, state: 'unknown', sources: ['blocked_by_section'] },
    ]);
  });

  it('a blocker named by several sources is listed once, with every source', () => {
    const verdict = verdictOf({
      nativeDependencies: [{ repository: 'acme/app', number: 5, state: 'open' }],
      relationshipEdges: [{ repository: 'Acme/App', number: 5, state: 'open' }],
      body: '## Blocked by\n#5 and https://github.com/acme/app/issues/5',
    });
    expect(verdict.openBlockers).toEqual([openInEverySource(5)]);
  });
});

describe('the `## Blocked by` section, as documented in docs/dispatcher.md', () => {
  const refs = (body: string) => blockedByReferences(body, self).map(issueKey);

  it('reads #n, owner/name#n and issue URLs; duplicates count once', () => {
    expect(refs('## Blocked by\n- #1\n- acme/lib#2\n- https://github.com/acme/x/issues/3\n- #1\n')).toEqual([
      'acme/app#1',
      'acme/lib#2',
      'acme/x#3',
    ]);
  });

  it('ignores other sections, before and after, and ends at the next level-1 or level-2 heading', () => {
    expect(refs('## Context\n#1\n## Blocked by:\n#2\n### Details\n#3\n## Notes\n#4\n# Title\n#5')).toEqual([
      'acme/app#2',
      'acme/app#3',
    ]);
  });

  it('ignores code fences and inline code', () => {
    expect(refs('## Blocked by\n```\n#1\n```\n~~~md\n#2\n~~~\n`#3` #4\n')).toEqual(['acme/app#4']);
  });

  it('a level-3 "Blocked by" heading or plain text mentioning blocked by is not the section', () => {
    expect(refs('### Blocked by\n#1\nBlocked by #2\n')).toEqual([]);
  });

  it('the issue never blocks itself; zero and non-numbers are not references', () => {
    expect(refs('## BLOCKED BY\n#100 #0 #abc acme/app#100 #12x')).toEqual([]);
  });

  it('reads several sections named Blocked by', () => {
    expect(refs('## Blocked by\n#1\n## Other\n#2\n## Blocked by\n#3')).toEqual(['acme/app#1', 'acme/app#3']);
  });
});

describe('property: for any blockers split across the sources in any way, blocked = any open', () => {
  const blocker = fc.record({
    repository: fc.constantFrom('acme/app', 'acme/lib', 'other/tool'),
    number: fc.integer({ min: 1, max: 60 }),
    state: fc.constantFrom<IssueState>('open', 'closed'),
    where: fc.subarray(['native', 'edge', 'body'] as const, { minLength: 1 }),
    form: fc.constantFrom('short', 'full', 'url'),
  });
  const noise = fc.constantFrom(
    '',
    '## Context\nsee #77 and acme/app#78\n',
    '```\n## Blocked by\n#79\n```\n',
    'Some text mentioning #80.\n',
  );

  it('holds for random sets, forms and noise', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(blocker, { selector: (b) => `${b.repository}#${b.number}` }),
        noise,
        noise,
        (blockers, before, after) => {
          const inBody = blockers.filter((b) => b.where.includes('body'));
          const line = (b: (typeof blockers)[number]) =>
            b.form === 'url'
              ? `- https://github.com/${b.repository}/issues/${b.number}`
              : b.form === 'full' || b.repository !== 'acme/app'
                ? `- ${b.repository}#${b.number}`
                : `- #${b.number}`;
          const body = `${before}## Blocked by\n${inBody.map(line).join('\n')}\n## After\n${after}`;
          const verdict = verdictOf({
            nativeDependencies: blockers.filter((b) => b.where.includes('native')),
            relationshipEdges: blockers.filter((b) => b.where.includes('edge')),
            body,
            states: Object.fromEntries(blockers.map((b) => [`${b.repository}#${b.number}`, b.state])),
          });
          const open = blockers.filter(
            (b) => b.state === 'open' && !(b.repository === 'acme/app' && b.number === 100),
          );
          expect(verdict.blocked).toBe(open.length > 0);
          expect(verdict.openBlockers.map(issueKey).sort()).toEqual(open.map(issueKey).sort());
        },
      ),
      { numRuns: 500 },
    );
  });
});
