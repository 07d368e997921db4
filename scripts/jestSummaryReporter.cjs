// Prints one plain closing line, `jest: N passed, N failed, N skipped`, that any CI can read.
// Written when the process exits so that it is the very last line, after jest's own summary.
// A test file that could not run at all counts as a failure: it hides every test inside it.
const { writeSync } = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const lines = [];
    if (results.numRuntimeErrorTestSuites > 0) lines.push(`${results.numRuntimeErrorTestSuites} test file(s) could not run`);
    lines.push(`jest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
    process.once('exit', () => writeSync(1, `\n${lines.join('\n')}\n`));
  }
}
module.exports = SummaryReporter;
