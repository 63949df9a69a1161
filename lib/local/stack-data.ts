import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';

/**
 * A Stack's own data, as the reference Dispatcher keeps it in its data folder: the append-only
 * Event journal (a real SQLite database) and one real git repository per Thread, whose `origin`
 * is a bare repository standing in for the code host. Commits pushed to `origin/main` are
 * shipped; commits on `main` that never reached it are the Thread's unshipped attempt.
 *
 * <root>/journal.db            the journal: table `events`, append-only (triggers refuse changes)
 * <root>/threads/<id>/         a Thread's working repository (branch `main`)
 * <root>/threads/<id>.json     the Thread: id, Project, issue
 * <root>/remotes/<id>.git      its remote (bare)
 */

const run = promisify(execFile);

/** git's environment: a fixed identity, no user or system configuration in the way. */
const GIT_ENVIRONMENT = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_COUNT: '3',
  GIT_CONFIG_KEY_0: 'user.name',
  GIT_CONFIG_VALUE_0: 'Reference Dispatcher',
  GIT_CONFIG_KEY_1: 'user.email',
  GIT_CONFIG_VALUE_1: 'dispatcher@stacks.local',
  GIT_CONFIG_KEY_2: 'commit.gpgsign',
  GIT_CONFIG_VALUE_2: 'false',
};

export const git = async (cwd: string, ...args: string[]): Promise<string> => {
  const { stdout } = await run('git', args, {
    cwd,
    env: { ...process.env, ...GIT_ENVIRONMENT },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
};

/**
 * A Thread's repositories and commits in one shell (one process from Node instead of one per git
 * command: a hundred Threads seed in seconds). Values arrive as environment variables, never
 * spliced into the script.
 */
const SEED_SCRIPT = `set -e
git init --quiet --bare --initial-branch=main "$REMOTE"
git init --quiet --initial-branch=main "$REPOSITORY"
cd "$REPOSITORY"
git remote add origin "$REMOTE"
n=1
while [ "$n" -le "$TOTAL" ]; do
  if [ "$n" -le "$SHIPPED" ]; then what="shipped step"; else what="unshipped attempt"; fi
  i=0
  : > "work-$n.txt"
  while [ "$i" -lt 20 ]; do printf '%s: %s %s\\n' "$THREAD" "$what" "$n" >> "work-$n.txt"; i=$((i + 1)); done
  git add "work-$n.txt"
  git commit --quiet -m "$ISSUE: $what $n"
  if [ "$n" -eq "$SHIPPED" ]; then git push --quiet origin main; fi
  n=$((n + 1))
done
`;

export interface ThreadInfo {
  threadId: string;
  projectId: string;
  /** The issue the Thread works on, e.g. `acme/app#12`. */
  issue: string;
}

export interface ThreadSeed extends ThreadInfo {
  /** Commits made and pushed to the remote. */
  shipped: number;
  /** Commits made after them and never pushed. */
  unshipped: number;
}

const THREAD_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class StackData {
  readonly root: string;
  private db: DatabaseSync | undefined;

  constructor(root: string) {
    this.root = root;
    mkdirSync(path.join(root, 'threads'), { recursive: true });
    mkdirSync(path.join(root, 'remotes'), { recursive: true });
  }

  get journalPath(): string {
    return path.join(this.root, 'journal.db');
  }

  /** The journal, opened once (created with its append-only table on first use). */
  journal(): DatabaseSync {
    if (!this.db) {
      const db = new DatabaseSync(this.journalPath);
      db.exec(`
        CREATE TABLE IF NOT EXISTS events (
          seq INTEGER PRIMARY KEY,
          at TEXT NOT NULL,
          kind TEXT NOT NULL,
          thread_id TEXT,
          body BLOB NOT NULL
        );
        CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
          BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
        CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
          BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
      `);
      this.db = db;
    }
    return this.db;
  }

  /** Appends one event. */
  append(kind: string, body: unknown, at: Date, threadId?: string): void {
    this.journal()
      .prepare('INSERT INTO events (at, kind, thread_id, body) VALUES (?, ?, ?, ?)')
      .run(at.toISOString(), kind, threadId ?? null, Buffer.from(JSON.stringify(body)));
  }

  /**
   * Appends events of `rowBytes` opaque bytes each until the journal file is at least `bytes` long
   * (the bench's big journals), in transactions of 64 MiB.
   */
  growTo(bytes: number, at: Date, rowBytes = 64 * 1024): void {
    const db = this.journal();
    const insert = db.prepare('INSERT INTO events (at, kind, thread_id, body) VALUES (?, ?, NULL, ?)');
    const body = Buffer.alloc(rowBytes);
    for (let i = 0; i < rowBytes; i += 4) body.writeUInt32LE((i * 2654435761) >>> 0, i);
    const perTransaction = Math.max(1, Math.floor((64 * 1024 * 1024) / rowBytes));
    while (this.journalBytes() < bytes) {
      db.exec('BEGIN');
      for (let i = 0; i < perTransaction; i++) insert.run(at.toISOString(), 'work_log', body);
      db.exec('COMMIT');
    }
  }

  journalBytes(): number {
    this.journal();
    return statSync(this.journalPath).size;
  }

  eventCount(): number {
    const row = this.journal().prepare('SELECT count(*) AS n FROM events').get() as { n: number };
    return Number(row.n);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }

  repository(threadId: string): string {
    return path.join(this.root, 'threads', threadId);
  }

  private remote(threadId: string): string {
    return path.join(this.root, 'remotes', `${threadId}.git`);
  }

  /**
   * A Thread with a repository: `shipped` commits pushed to its remote, then `unshipped` commits
   * that never were. Its start is an event of the journal.
   */
  async addThread(seed: ThreadSeed, at: Date): Promise<ThreadInfo> {
    if (!THREAD_ID.test(seed.threadId)) throw new Error(`not a thread id: ${seed.threadId}`);
    const repository = this.repository(seed.threadId);
    const remote = this.remote(seed.threadId);
    await run('sh', ['-c', SEED_SCRIPT], {
      env: {
        ...process.env,
        ...GIT_ENVIRONMENT,
        REMOTE: remote,
        REPOSITORY: repository,
        THREAD: seed.threadId,
        ISSUE: seed.issue,
        SHIPPED: String(seed.shipped),
        TOTAL: String(seed.shipped + seed.unshipped),
      },
    });
    const info: ThreadInfo = { threadId: seed.threadId, projectId: seed.projectId, issue: seed.issue };
    writeFileSync(path.join(this.root, 'threads', `${seed.threadId}.json`), JSON.stringify(info));
    this.append('thread_started', info, at, seed.threadId);
    return info;
  }

  threads(): ThreadInfo[] {
    return readdirSync(path.join(this.root, 'threads'))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => JSON.parse(readFileSync(path.join(this.root, 'threads', name), 'utf8')) as ThreadInfo);
  }

  /** The remote's `main` as the repository last saw it, or undefined when nothing was ever pushed. */
  async shippedHead(threadId: string): Promise<string | undefined> {
    try {
      return await git(
        this.repository(threadId),
        'rev-parse',
        '--verify',
        '--quiet',
        'refs/remotes/origin/main',
      );
    } catch {
      return undefined;
    }
  }

  /** The commits on `main` that never reached the remote, newest first. */
  async unshippedCommits(threadId: string): Promise<string[]> {
    const repository = this.repository(threadId);
    const head = await git(repository, 'rev-parse', '--verify', '--quiet', 'refs/heads/main').catch(() => '');
    if (!head) return [];
    const shipped = await this.shippedHead(threadId);
    const listed = await git(
      repository,
      'rev-list',
      'refs/heads/main',
      ...(shipped ? ['^refs/remotes/origin/main'] : []),
    );
    return listed ? listed.split('\n') : [];
  }

  /**
   * A git bundle of exactly the Thread's unshipped commits (`main`, less what the remote has), or
   * false when there are none (git refuses an empty bundle; the Thread is then not in the archive).
   */
  async bundle(threadId: string, file: string): Promise<boolean> {
    if ((await this.unshippedCommits(threadId)).length === 0) return false;
    const shipped = await this.shippedHead(threadId);
    await git(
      this.repository(threadId),
      'bundle',
      'create',
      '--quiet',
      file,
      'refs/heads/main',
      ...(shipped ? ['^refs/remotes/origin/main'] : []),
    );
    return true;
  }
}
