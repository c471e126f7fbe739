import { describe, expect, it } from 'vitest';
import { workerNodeFlags } from '../../src/cli/serve.js';

describe('the server workers’ node flags', () => {
  const ours = ['--max-semi-space-size=64', '--no-allocation-site-pretenuring'];

  it('add a 64 MiB semi-space and no pretenuring to the primary’s own flags', () => {
    expect(workerNodeFlags([])).toEqual(ours);
    expect(workerNodeFlags(['--enable-source-maps'], '--no-warnings')).toEqual([
      '--enable-source-maps',
      ...ours,
    ]);
  });

  it('leave the operator’s own choice alone, on the command line or in NODE_OPTIONS', () => {
    expect(workerNodeFlags(['--max-semi-space-size=8'])).toEqual([
      '--max-semi-space-size=8',
      '--no-allocation-site-pretenuring',
    ]);
    expect(workerNodeFlags([], '--inspect --max_semi_space_size=16')).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
    expect(workerNodeFlags(['--allocation-site-pretenuring'])).toEqual([
      '--allocation-site-pretenuring',
      '--max-semi-space-size=64',
    ]);
    expect(workerNodeFlags(['--no_allocation_site_pretenuring'])).toEqual([
      '--no_allocation_site_pretenuring',
      '--max-semi-space-size=64',
    ]);
    // Node takes a quoted flag in NODE_OPTIONS as the flag.
    expect(workerNodeFlags([], '"--max-semi-space-size=16"')).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
  });
});
