import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageVersion } from '../../src/config/index.js';
import { openApiText } from '../../src/ui/index.js';
import { repoRoot } from '../lib/repo.js';

/**
 * `npm run openapi`: writes docs/openapi.json from the schemas the local API validates with
 * (docs/local-api.md, "The document"). test/ui/openapi.test.ts fails while the committed
 * file and the generated document differ.
 */
const out = join(repoRoot(), 'docs', 'openapi.json');
writeFileSync(out, openApiText(packageVersion()));
process.stdout.write(`wrote ${out}\n`);
