// The pr-review service: owns PR review attempts and findings; everything said to the source host about pull requests.
import { startPrReview } from './prReview.js';

await startPrReview();
