import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain "N passed, N failed" line that CI reads. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const m of modules) {
      let failedHere = 0;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A failing hook (beforeAll, afterAll) fails the file without failing a test.
      if (m.state() === 'failed' && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(
      `\nTest order seed: ${process.env.TEST_ORDER_SEED} (TEST_ORDER_SEED=${process.env.TEST_ORDER_SEED} runs this order again)` +
        `\nTests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
