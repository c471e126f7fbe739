import { describe, expect, it } from 'vitest';
import { workerNodeFlags } from '../../src/cli/serve.js';

describe('the server workers’ node flags', () => {
  it('add a 64 MiB semi-space to the primary’s own flags', () => {
    expect(workerNodeFlags([])).toEqual(['--max-semi-space-size=64']);
    expect(workerNodeFlags(['--enable-source-maps'], '--no-warnings')).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=64',
    ]);
  });

  it('leave the operator’s own choice alone, on the command line or in NODE_OPTIONS', () => {
    expect(workerNodeFlags(['--max-semi-space-size=8'])).toEqual(['--max-semi-space-size=8']);
    expect(workerNodeFlags([], '--inspect --max_semi_space_size=16')).toEqual([]);
  });
});
