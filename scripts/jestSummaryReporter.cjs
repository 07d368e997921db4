// Prints one plain closing line, `jest: N passed, N failed, N skipped`, that any CI can read.
// A test file that could not run at all counts as a failure: it hides every test inside it.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    if (results.numRuntimeErrorTestSuites > 0) {
      process.stdout.write(`\n${results.numRuntimeErrorTestSuites} test file(s) could not run\n`);
    }
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
