import type { Source } from '../../src/pipeline/builtin-advisor.js';

/** Source n of a story, from its own publisher unless one is given. */
export const source = (
  n: number,
  title: string,
  text: string,
  publisher = `Paper ${n}`,
): Source => ({
  source_key: `s${n}`,
  url: `https://news${n}.example.org/a`,
  title,
  publisher,
  published_at: '2026-11-20',
  text,
});
