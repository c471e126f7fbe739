import { describe, expect, it } from 'vitest';
import { serverV8Flags } from '../../src/cli/server-threads.js';

describe('the server threads’ V8 flags', () => {
  const ours = ['--max-semi-space-size=64', '--no-allocation-site-pretenuring'];

  it('are a 64 MiB semi-space and no pretenuring, whatever else the process runs with', () => {
    expect(serverV8Flags([])).toEqual(ours);
    expect(serverV8Flags(['--enable-source-maps'], '--no-warnings')).toEqual(ours);
  });

  it('leave the operator’s own choice alone, on the command line or in NODE_OPTIONS', () => {
    expect(serverV8Flags(['--max-semi-space-size=8'])).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
    expect(serverV8Flags([], '--inspect --max_semi_space_size=16')).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
    expect(serverV8Flags(['--allocation-site-pretenuring'])).toEqual(['--max-semi-space-size=64']);
    expect(serverV8Flags(['--no_allocation_site_pretenuring'])).toEqual([
      '--max-semi-space-size=64',
    ]);
    // Node takes a quoted flag in NODE_OPTIONS as the flag.
    expect(serverV8Flags([], '"--max-semi-space-size=16"')).toEqual([
      '--no-allocation-site-pretenuring',
    ]);
  });
});
