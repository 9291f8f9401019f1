import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';

/**
 * docs/openapi.json through the validators a POS team's toolchain runs on it (docs/local-api.md,
 * "The document"): ReadMe's openapi-parser, swagger-cli and spectral's `oas` ruleset (.spectral.yaml).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'openapi.json');

function node(script: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', script), ...args],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, out: `${stdout}${stderr}` });
      },
    );
  });
}

describe('docs/openapi.json in the validators POS teams run', () => {
  it('@readme/openapi-parser validates it', async () => {
    await expect(validate(DOCUMENT)).resolves.toBeDefined();
  });

  it('swagger-cli validates it', async () => {
    const r = await node('@apidevtools/swagger-cli/bin/swagger-cli.js', ['validate', DOCUMENT]);
    expect(r.out).toContain('is valid');
    expect(r.code).toBe(0);
  });

  it("spectral's oas ruleset finds no error and no warning (every operation described)", async () => {
    const r = await node('@stoplight/spectral-cli/dist/index.js', [
      'lint',
      DOCUMENT,
      '--ruleset',
      join(ROOT, '.spectral.yaml'),
      '--format',
      'json',
      '--quiet',
    ]);
    const results = JSON.parse(r.out.slice(r.out.indexOf('['))) as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    // Severity 0 is an error, 1 a warning (2 information, 3 hint).
    expect(results.filter((x) => x.severity <= 1).map((x) => `${x.code}: ${x.message} at ${x.path.join('.')}`)).toEqual(
      [],
    );
  }, 60_000);
});
