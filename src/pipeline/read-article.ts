import type { Config } from '../config.js';
import { FetchRefused, safeFetch } from '../net/safe-fetch.js';
import type { ArticleInput } from './builtin-advisor.js';
import { decodeBody } from './charset.js';
import { extractArticle } from './extract.js';

export type ReadOutcome =
  | { ok: true; article: ArticleInput }
  /** `transient`: the page may well work later (a timeout, a network error, a 5xx or 429). */
  | { ok: false; reason: string; transient: boolean };

const TRANSIENT_FETCH = /^(no complete answer within|cannot fetch:)/;

/**
 * Fetches a page (public hosts only) and extracts its article. A page that cannot be
 * used answers a reason; only errors that are not the page's fault throw.
 */
export async function readArticle(
  config: Config,
  url: string,
  today: string,
): Promise<ReadOutcome> {
  let page: Awaited<ReturnType<typeof safeFetch>>;
  try {
    page = await safeFetch(config, url, { headers: { accept: 'text/html' } });
  } catch (e) {
    if (e instanceof FetchRefused) {
      return {
        ok: false,
        reason: e.message,
        transient: e.transient || TRANSIENT_FETCH.test(e.message),
      };
    }
    throw e;
  }
  if (page.status !== 200) {
    return {
      ok: false,
      reason: `the page answered HTTP ${page.status}`,
      transient: page.status >= 500 || page.status === 429,
    };
  }
  const type = page.headers.get('content-type') ?? '';
  if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(type)) {
    return {
      ok: false,
      reason: `not an HTML page (${type.split(';')[0] || 'no content type'})`,
      transient: false,
    };
  }
  const { text: html, charset } = decodeBody(page.body, type, 'html');
  let article: ReturnType<typeof extractArticle>;
  try {
    article = extractArticle(html, page.url);
  } catch {
    // A page the parser chokes on is the page's problem, not a reason to retry forever.
    return { ok: false, reason: 'the page could not be read', transient: false };
  }
  if (!article) return { ok: false, reason: 'no readable article on the page', transient: false };
  return {
    ok: true,
    article: {
      url: page.url,
      canonical_url: article.canonical_url,
      title: article.title,
      publisher: article.publisher,
      published_at: (article.published_at ?? today).slice(0, 10),
      text: article.text,
      charset,
    },
  };
}
