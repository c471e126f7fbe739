import { type AppContext, inTransaction } from '../context.js';
import { encodePayload, type JobKind } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';

/** What a poll did: its status and, when it read items, what became of them. */
export interface PollOutcome {
  status: string;
  items?: number;
  created?: number;
  joined?: number;
  skipped?: number;
}

/** What became of an item; `transient` when it may read later (down, slow, 5xx). */
export interface ItemOutcome {
  outcome: string;
  event_uri?: string;
  transient?: boolean;
}

/**
 * A poll's batch read into the pipeline, each item in turn, and remembered unless it may
 * read later (a page down, slow, 5xx: the next poll reads it again). Answers the counts
 * and how many are left to retry.
 */
export async function readBatch<T>(
  batch: readonly T[],
  ingest: (item: T) => Promise<ItemOutcome>,
  remember: (item: T, outcome: ItemOutcome) => Promise<unknown>,
) {
  const counts: OutcomeCounts = { created: 0, joined: 0, skipped: 0 };
  let retry = 0;
  for (const item of batch) {
    const outcome = await ingest(item);
    if (outcome.transient) {
      retry++;
      continue;
    }
    countOutcome(counts, outcome);
    await remember(item, outcome);
  }
  return { counts, retry };
}

export type OutcomeCounts = { created: number; joined: number; skipped: number };

/** Counts what became of an item: a story made or joined, or skipped (held as it was: not). */
export function countOutcome(counts: OutcomeCounts, outcome: ItemOutcome) {
  if (outcome.outcome === 'created' || outcome.outcome === 'joined') counts[outcome.outcome]++;
  else if (outcome.outcome !== 'exists') counts.skipped++;
}

/**
 * Claims one due poll (a feed's, a brand's connector's) for this process and enqueues its
 * job, in one transaction: the row's next poll moves forward only if it still holds the
 * value read, so a process that moved it first polls instead; and no job is added while
 * the row's last poll is still queued or running (a backlog, a long poll, a retry: it
 * reads what is new when it runs, and two polls of one row never run at once). Answers
 * whether this process enqueued it.
 */
export async function claimPoll<P>(
  app: AppContext,
  table: 'brand_feeds' | 'brand_connectors',
  row: { id: string; next_poll_at: string | null },
  next: string,
  job: { kind: JobKind<P>; payload: P; now: string; runAt?: string },
): Promise<boolean> {
  return inTransaction(app, async (app) => {
    const trx = app.db;
    const moved = await trx
      .updateTable(table)
      .set({ next_poll_at: next })
      .where('id', '=', row.id)
      .where('next_poll_at', row.next_poll_at === null ? 'is' : '=', row.next_poll_at)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    const pending = await trx
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', job.kind.name)
      .where('payload', '=', encodePayload(job.kind, job.payload))
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (pending) return false;
    await enqueue(trx, job.kind, job.payload, {
      now: job.now,
      ...(job.runAt && { runAt: job.runAt }),
      maxAttempts: 3,
    });
    return true;
  });
}
