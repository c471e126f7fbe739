import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, run by `npm run bench` against dist/
import { seed } from '../../bench/seed.js';

// The bench is plain JavaScript against dist/: nothing type-checks its calls into the
// service, so a changed signature would only show when someone runs `npm run bench`.
it('the benchmark seeds a data set with the service functions as they are today', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'brs-bench-seed-'));
  try {
    const data = await seed(`sqlite:${join(dir, 'bench.db')}`, {
      brands: 2,
      keys: 3,
      storiesPerBrand: 4,
    });
    expect(data.keys).toHaveLength(3);
    expect(data.keys[0].key).toMatch(/^brs_/);
    expect(Object.keys(data.stories)).toHaveLength(2);
    for (const uris of Object.values(data.stories)) expect(uris).toHaveLength(4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
