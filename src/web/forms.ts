import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid, pageError } from '../errors.js';
import { html, PAGE_HEADERS, page } from './html.js';

/**
 * Headers of pages whose forms may end at another site (the OAuth consent goes back to the
 * client, onboarding back to the partner's product): without `form-action`, which browsers
 * also apply to the redirects that follow a submitted form.
 */
export const REDIRECTING_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};

/**
 * Mounts server-rendered pages in their own scope: their forms post url-encoded bodies,
 * and nothing else is read there (the API stays JSON-only; the pages take no JSON).
 */
export function mountFormPages(
  fastify: FastifyInstance,
  headers: Record<string, string>,
  routes: (pages: FastifyInstance) => void,
) {
  fastify.register(async (pages) => {
    pages.removeContentTypeParser('application/json');
    pages.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_req, body, done) => {
        // PostgreSQL cannot store NUL, and no form has a use for it.
        if ((body as string).includes('%00') || (body as string).includes('\0')) {
          done(invalid('body: NUL characters are not allowed'));
          return;
        }
        done(null, parseForm(body as string));
      },
    );
    pages.addHook('onSend', async (_req, reply) => {
      reply.headers(headers);
    });
    // Pages answer errors as pages, with the contract's status and text (a 500 is logged
    // with the request id and says nothing more).
    pages.setErrorHandler(async (err, req, reply) => {
      const r = pageError(err, req.log);
      return reply
        .code(r.status)
        .headers(r.headers)
        .type('text/html; charset=utf-8')
        .send(
          page(
            r.status >= 500 ? 'Something went wrong' : 'Not possible',
            html`<h1>${r.text}</h1><p><a href="/app">Back to the overview</a></p>`,
          ),
        );
    });
    routes(pages);
  });
}

/** A url-encoded form: a field sent more than once (checkboxes) becomes a list. */
function parseForm(body: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Every value of a field sent once or more (checkboxes), in order. */
export function formFields(req: FastifyRequest, name: string): string[] {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return ([] as unknown[]).concat(value ?? []).filter((v): v is string => typeof v === 'string');
}

/** A form field's value, or '' when absent or sent twice (a single field is a string). */
export function formField(req: FastifyRequest, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}
