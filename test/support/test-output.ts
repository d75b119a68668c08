// Where tests save what a person reviews (drawings, screenshots): a git-ignored folder at the repository's root.
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/devserver/temporal-cli';

/** `.test-output/` in the checkout; CI keeps it with the job's logs when it can. */
export const TEST_OUTPUT_DIR = path.join(PROJECT_ROOT, '.test-output');
