import { describe, expect, it } from 'vitest';
import { blockedByReferences } from '#core/blocking.ts';
import { openInEverySource, self, verdictOf } from '../support/blocking-sources.ts';

// How the `## Blocked by` section is read, at the edges of markdown the other unit tests leave
// open (headings, fences, inline code, references), and how the sources combine.

const refs = (body: string) => blockedByReferences(body, self).map((r) => `${r.repository}#${r.number}`);

describe('the section heading', () => {
  it('is a level-2 heading at most three spaces in, with any spacing and closing hashes', () => {
    expect(refs('## Blocked by\n#1')).toEqual(['acme/app#1']);
    expect(refs('   ## Blocked by:\n#1')).toEqual(['acme/app#1']);
    expect(refs('##   blocked   BY  ##\n#1')).toEqual(['acme/app#1']);
    expect(refs('## Blocked by :\n#1')).toEqual(['acme/app#1']);
  });

  it('is no heading four spaces in, or without a space after the hashes, or with other words', () => {
    expect(refs('    ## Blocked by\n#1')).toEqual([]);
    expect(refs('x ## Blocked by\n#1')).toEqual([]);
    expect(refs('##Blocked by\n#1')).toEqual([]);
    expect(refs('## Blocked\tby\n#1')).toEqual(['acme/app#1']);
    expect(refs('## Blockedby\n#1')).toEqual([]);
    expect(refs('## Not blocked by\n#1')).toEqual([]);
    expect(refs('## Blocked by these\n#1')).toEqual([]);
    expect(refs('## Blocked by::\n#1')).toEqual([]);
    expect(refs('## Blocked by x:\n#1')).toEqual([]);
  });

  it('a level-1 heading ends the section; a level-1 "Blocked by" does not start one', () => {
    expect(refs('## Blocked by\n#1\n# Notes\n#2')).toEqual(['acme/app#1']);
    expect(refs('# Blocked by\n#1')).toEqual([]);
  });
});

describe('code is not read', () => {
  it('a fence is three or more backticks or tildes, at most three spaces in', () => {
    expect(refs('## Blocked by\n```\n#1\n```\n#2')).toEqual(['acme/app#2']);
    expect(refs('## Blocked by\n   ~~~\n#1\n~~~\n#2')).toEqual(['acme/app#2']);
    // Four spaces in, or a line that merely contains backticks, opens no fence.
    expect(refs('## Blocked by\n    ```\n#1')).toEqual(['acme/app#1']);
    expect(refs('## Blocked by\nsee ```\n#1')).toEqual(['acme/app#1']);
    expect(refs('## Blocked by\n~\n#1')).toEqual(['acme/app#1']);
  });

  it('a fence closes only with the same character, at least as long', () => {
    expect(refs('## Blocked by\n````\n#1\n```\n#2\n````\n#3')).toEqual(['acme/app#3']);
    expect(refs('## Blocked by\n```\n#1\n~~~\n#2\n```\n#3')).toEqual(['acme/app#3']);
  });

  it('inline code is skipped, and what stands around it still counts', () => {
    expect(refs('## Blocked by\n`#1`#2 and #3')).toEqual(['acme/app#2', 'acme/app#3']);
    expect(refs('## Blocked by\nx`#1`#2')).toEqual(['acme/app#2']);
  });
});

describe('references', () => {
  it('issue URLs on any host, http or https', () => {
    expect(
      refs('## Blocked by\nhttp://git.example/other/lib/issues/12 and https://git.example/o/r/issues/3'),
    ).toEqual(['other/lib#12', 'o/r#3']);
  });
});

describe('the sources combined', () => {
  it('the issue never blocks itself, whichever source names it', () => {
    const verdict = verdictOf({
      nativeDependencies: [{ repository: 'ACME/app', number: 100, state: 'open' }],
      relationshipEdges: [{ repository: 'acme/app', number: 100, state: 'open' }],
    });
    expect(verdict).toEqual({ blocked: false, openBlockers: [] });
  });

  it('open wins whatever order the sources come in, and an unknown state counts as open', () => {
    const verdict = verdictOf({
      nativeDependencies: [{ repository: 'acme/app', number: 7, state: 'open' }],
      relationshipEdges: [{ repository: 'acme/app', number: 7, state: 'closed' }],
      body: '## Blocked by\n#7\n#9',
    });
    expect(verdict.openBlockers).toEqual([
      openInEverySource(7),
      { repository: 'acme/app', number: 9, state: 'unknown', sources: ['blocked_by_section'] },
    ]);
  });

  it('open blockers are listed by repository and number', () => {
    const verdict = verdictOf({
      nativeDependencies: [
        { repository: 'zeta/z', number: 1, state: 'open' },
        { repository: 'acme/app', number: 3, state: 'open' },
        { repository: 'Beta/b', number: 2, state: 'open' },
      ],
    });
    expect(verdict.openBlockers.map((b) => `${b.repository}#${b.number}`)).toEqual([
      'acme/app#3',
      'Beta/b#2',
      'zeta/z#1',
    ]);
  });
});
