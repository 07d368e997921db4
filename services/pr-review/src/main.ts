// The pr-review service: owns PR review attempts and findings; everything said to the source host about pull requests.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { prReviewConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(prReviewConfiguration);
const { startPrReview } = await import('./prReview.js');
await startPrReview();
