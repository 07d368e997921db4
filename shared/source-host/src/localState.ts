import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CheckRun, CheckRunAnnotation } from './sourceHost.js';

export interface StoredPullRequest {
  number: number;
  title: string;
  headRef: string;
  baseRef: string;
  state: 'open' | 'closed';
  merged: boolean;
  /** The SHAs when it was opened or closed; an open pull request reads its branches instead. */
  headSha: string;
  baseSha: string;
}

/** A check run with what was sent to it (its `url` is always null locally, so not kept). */
export interface StoredCheckRun extends Omit<CheckRun, 'url'> {
  detailsUrl: string | null;
  output: { title: string; summary: string; text: string | null } | null;
  annotations: CheckRunAnnotation[];
}

export interface StoredReview {
  id: number;
  number: number;
  commitSha: string;
  body: string;
  event: 'COMMENT';
}

export interface StoredReviewComment {
  id: number;
  number: number;
  reviewId: number | null;
  commitSha: string;
  path: string;
  line: number | null;
  body: string;
  inReplyToId: number | null;
  author: string;
}

/** What the local host keeps beside one bare repository. */
export interface RepositoryState {
  /** The next id of a check run, review or comment (one sequence, as GitHub's ids are unique). */
  nextId: number;
  pullRequests: StoredPullRequest[];
  checkRuns: StoredCheckRun[];
  reviews: StoredReview[];
  comments: StoredReviewComment[];
}

const empty = (): RepositoryState => ({ nextId: 1, pullRequests: [], checkRuns: [], reviews: [], comments: [] });

/** Writers of one state file, chained: within the process one change at a time, whatever instance asks. */
const writers = new Map<string, Promise<unknown>>();

/** One repository's state file: JSON, replaced atomically (a temp file renamed over it). */
export class RepositoryStateFile {
  constructor(private readonly file: string) {}

  async read(): Promise<RepositoryState> {
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as RepositoryState;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty();
      throw error;
    }
  }

  /** Reads, lets `change` edit the state and answer, writes it back; changes never interleave. */
  update<T>(change: (state: RepositoryState) => T | Promise<T>): Promise<T> {
    const previous = writers.get(this.file) ?? Promise.resolve();
    const next = previous.then(async () => {
      const state = await this.read();
      const answer = await change(state);
      await mkdir(dirname(this.file), { recursive: true });
      const temp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
      await rename(temp, this.file);
      return answer;
    });
    const settled = next.catch(() => undefined);
    writers.set(this.file, settled);
    void settled.then(() => {
      if (writers.get(this.file) === settled) writers.delete(this.file);
    });
    return next;
  }
}
