import type { Config } from '../config.js';
import { FetchRefused, safeFetch } from '../net/safe-fetch.js';
import type { ArticleInput } from './builtin-advisor.js';
import { decodeBody } from './charset.js';
import { extractArticle } from './extract.js';
import { detectLanguage } from './language.js';

/** Why a page cannot be used. `transient`: it may well work later (a timeout, a 5xx, a 429). */
export type PageFailure = { ok: false; reason: string; transient: boolean };

/** A page's bytes as they arrived, and where from. */
export interface Page {
  url: string;
  body: Uint8Array;
  /** The HTTP Content-Type; null for a page read from a file. */
  contentType: string | null;
}

/** The article of a page: a publication date only when the page states one. */
export type PageArticle = Omit<ArticleInput, 'published_at'> & {
  published_at: string | null;
  language: string | null;
  charset: string;
};

export type ReadOutcome = { ok: true; article: ArticleInput } | PageFailure;

const TRANSIENT_FETCH = /^(no complete answer within|cannot fetch:)/;

/** Fetches an HTML page from a public host; anything else is a failure with its reason. */
export async function fetchPage(
  config: Config,
  url: string,
): Promise<{ ok: true; page: Page } | PageFailure> {
  let res: Awaited<ReturnType<typeof safeFetch>>;
  try {
    res = await safeFetch(config, url, { headers: { accept: 'text/html' } });
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
  if (res.status !== 200) {
    return {
      ok: false,
      reason: `the page answered HTTP ${res.status}`,
      transient: res.status >= 500 || res.status === 429,
    };
  }
  const type = res.headers.get('content-type') ?? '';
  if (!/^(text\/html|application\/xhtml\+xml)\b/i.test(type)) {
    return {
      ok: false,
      reason: `not an HTML page (${type.split(';')[0] || 'no content type'})`,
      transient: false,
    };
  }
  return { ok: true, page: { url: res.url, body: res.body, contentType: type } };
}

/** `<html lang="fr-CA">` → `fr`, when the page declares a two-letter language. */
const declaredLanguage = (lang: string | null) =>
  /^([a-z]{2})(?:-|$)/i.exec(lang?.trim() ?? '')?.[1]?.toLowerCase() ?? null;

/**
 * The article in a page's bytes: decoded in its charset, extracted, its language told
 * from its text (the page's own `lang` when the text is too short to tell). `now` bounds
 * the publication dates believed.
 */
export function readPage(page: Page, now: Date): { ok: true; article: PageArticle } | PageFailure {
  const { text: html, charset } = decodeBody(page.body, page.contentType, 'html');
  let article: ReturnType<typeof extractArticle>;
  try {
    article = extractArticle(html, page.url, now);
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
      published_at: article.published_at?.slice(0, 10) ?? null,
      text: article.text,
      ...(article.opinion && { opinion: true }),
      language:
        detectLanguage(`${article.title}\n${article.text}`) ?? declaredLanguage(article.lang),
      charset,
    },
  };
}

/**
 * Fetches a page (public hosts only) and reads its article; `given` is a publication date
 * that came with the link (a feed item's), for a page that states none. With neither the
 * article is undated: its date is the day it was read, and it says so. A page that cannot
 * be used answers a reason; only errors that are not the page's fault throw.
 */
export async function readArticle(
  config: Config,
  url: string,
  given: string | null,
  now: Date,
): Promise<ReadOutcome> {
  const fetched = await fetchPage(config, url);
  if (!fetched.ok) return fetched;
  const read = readPage(fetched.page, now);
  if (!read.ok) return read;
  const date = read.article.published_at ?? given?.slice(0, 10) ?? null;
  return {
    ok: true,
    article: {
      ...read.article,
      published_at: date ?? now.toISOString().slice(0, 10),
      ...(date === null && { undated: true }),
    },
  };
}
