/**
 * Preloaded into `brs serve` (NODE_OPTIONS=--import) by workers.test.ts: in a server
 * thread, once the file BRS_TEST_CRASH_FILE appears, the one thread that deletes it throws
 * an exception nothing catches, as a bug would, so the test can see the thread replaced.
 */
import { unlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BRS_TEST_CRASH_FILE;
if (!isMainThread && file) {
  setInterval(() => {
    try {
      unlinkSync(file);
    } catch {
      return; // not there, or another thread took it
    }
    throw new Error('crashed on purpose by the test');
  }, 20).unref();
}
