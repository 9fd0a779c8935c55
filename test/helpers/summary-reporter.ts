import type { Reporter, TestModule } from 'vitest/node';

type UnhandledErrors = Parameters<NonNullable<Reporter['onTestRunEnd']>>[1];

/**
 * Prints the plain closing line CI reads ("N passed, N failed"), after vitest's own summary. A test
 * file that failed as a whole (it did not load, or registered no test) and every unhandled error
 * count as failures too, so the line can never say "0 failed" over a red run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: UnhandledErrors): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file-level failure ("No test suite found", an import error) has no failed test of its own.
      if (failedHere === 0 && (module.state() === 'failed' || module.errors().length > 0)) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(
      `\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
