import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { signLink, verifyLink } from '../auth/signed-links.js';
import type { AppContext } from '../context.js';
import { isShareGuest, listedShares, type ShareMode, shareByToken } from '../domain/shares.js';
import { loadStoryDetail, type SourceNote, sourceNotes } from '../domain/story-view.js';
import { queueEmail } from '../email/outbox.js';
import type { StoryDetail } from '../operations/shapes.js';
import { cookieHeader, readCookie } from './cookies.js';
import { formField, mountFormPages } from './forms.js';
import { html, languageTag, PAGE_HEADERS, page, safeHref, shell, sourceDate } from './html.js';

const WINDOW_MS = 60_000;
/** The emailed sign-in link of a guest, and the session it opens. */
const GUEST_LINK_TTL_MS = 60 * 60_000;
const GUEST_SESSION_TTL_MS = 12 * 3_600_000;
const GUEST_COOKIE = 'share_guest';

type ShareRequest = FastifyRequest<{ Params: { token: string } }>;

/**
 * The share pages. A public page is anonymous and shows at most the briefing, never the
 * response plan. A guests page shows nothing until an invited guest signs in through a
 * link emailed to them; the session is a signed cookie for that one share. Every request
 * reads the share's current settings, so retuning takes effect at once.
 */
export function mountShares(fastify: FastifyInstance, app: AppContext) {
  const secure = app.config.baseUrl.startsWith('https:');
  mountFormPages(fastify, PAGE_HEADERS, (pages) => {
    pages.get('/shares', async () => {
      const rows = await listedShares(app, 100);
      return page(
        'Shared stories',
        html`<h1>Shared stories</h1>
${rows.length === 0 ? html`<p class="muted">Nothing is listed yet.</p>` : ''}
<ul>${rows.map(
          (r) =>
            html`<li><a href="/s/${r.token}">${r.title}</a> <span class="badge sev-${r.severity}">${r.severity}</span> <span class="muted">· ${r.brand_name} · ${r.detected_at.slice(0, 10)}</span></li>`,
        )}</ul>`,
      );
    });

    pages.get('/s/:token', async (req: ShareRequest, reply) => {
      const share = await shareByToken(app, req.params.token);
      if (!share) return missing(reply);
      if (share.access === 'guests') {
        const guest = await guestOf(app, req, share.id);
        if (!guest) return guestSignIn(share.token);
      }
      const story = await loadStoryDetail(app.db, share.brand_id, share.event_uri);
      // A public page never goes past the briefing, whatever is stored.
      const mode: ShareMode =
        share.access === 'public' && share.mode === 'full' ? 'briefing' : (share.mode as ShareMode);
      const brand = {
        name: share.brand_name,
        host: share.brand_host,
        verified: share.brand_verified === 1,
      };
      return storyPage(story, brand, mode, await sourceNotes(app.db, share.event_uri));
    });

    pages.post('/s/:token/signin', async (req: ShareRequest, reply) => {
      const share = await shareByToken(app, req.params.token);
      if (share?.access !== 'guests') return missing(reply);
      const w = await app.limiter.hit(`share-signin:${req.ip}`, WINDOW_MS);
      if (w.count > app.config.authFailuresPerMinute) {
        return reply
          .code(429)
          .header('retry-after', '60')
          .send(guestSignIn(share.token, 'Too many attempts. Wait a minute.'));
      }
      const email = formField(req, 'email').trim().toLowerCase();
      if (email && (await isShareGuest(app, share.id, email))) {
        const link = await signLink(
          app,
          'share-link',
          { s: share.id, e: email },
          GUEST_LINK_TTL_MS,
        );
        await queueEmail(
          app.db,
          {
            accountId: share.account_id,
            to: email,
            kind: 'notice',
            subject: `Your link to a story shared by ${share.brand_name}${share.brand_verified === 1 ? '' : ' (unverified)'}`,
            text: `Open the shared story here (the link works for one hour): ${app.config.baseUrl}/s/${share.token}/g/${link}`,
          },
          app.clock.now().toISOString(),
        );
      }
      // The same answer either way: the page never tells who is invited.
      return page(
        'Check your email',
        html`<h1>Check your email</h1><div class="card"><p>If this address was invited, a sign-in link is on its way.</p></div>`,
      );
    });

    pages.get(
      '/s/:token/g/:link',
      async (req: FastifyRequest<{ Params: { token: string; link: string } }>, reply) => {
        const share = await shareByToken(app, req.params.token);
        const data = await verifyLink(app, 'share-link', req.params.link);
        if (!share || !data || data.s !== share.id || typeof data.e !== 'string') {
          return missing(reply);
        }
        // A guest removed since the link was sent (by the team, or with the partner that
        // invited them) opens nothing.
        if (!(await isShareGuest(app, share.id, data.e))) return missing(reply);
        const session = await signLink(
          app,
          'share-guest',
          { s: share.id, e: data.e },
          GUEST_SESSION_TTL_MS,
        );
        const cookie = cookieHeader(GUEST_COOKIE, session, {
          path: `/s/${share.token}`,
          maxAgeSeconds: GUEST_SESSION_TTL_MS / 1000,
          secure,
        });
        return reply.header('set-cookie', cookie).redirect(`/s/${share.token}`, 303);
      },
    );
  });
}

/** The signed-in guest of this share, still on its guest list, or null. */
async function guestOf(app: AppContext, req: FastifyRequest, shareId: string) {
  const value = readCookie(req, GUEST_COOKIE);
  if (!value) return null;
  const data = await verifyLink(app, 'share-guest', value);
  if (!data || data.s !== shareId || typeof data.e !== 'string') return null;
  return (await isShareGuest(app, shareId, data.e)) ? data.e : null;
}

function guestSignIn(token: string, problem?: string) {
  return page(
    'Shared with guests',
    html`<h1>This story is shared with invited guests</h1>
<p class="muted">Enter the email address you were invited with: we send you a sign-in link.</p>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form class="card" method="post" action="/s/${token}/signin">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send me a link</button>
</form>`,
  );
}

function missing(reply: FastifyReply) {
  return reply
    .code(404)
    .send(
      page(
        'Not found',
        html`<h1>This page does not exist</h1><p class="muted">The link may have been withdrawn.</p>`,
      ),
    );
}

/**
 * The story at the share's mode, as a briefing a journalist or an executive reads and
 * prints: compact (the headline facts and the brand's statement), briefing (the cited
 * summary and its sources too) or full (the response plan too). Its top bar names the
 * brand and leads nowhere: visitors have nothing to sign in to.
 */
function storyPage(
  story: z.input<typeof StoryDetail>,
  brand: { name: string; host: string; verified: boolean },
  mode: ShareMode,
  notes: ReadonlyMap<string, SourceNote>,
) {
  const brandName = brand.name;
  // A brand whose domain nobody proved: the page does not speak in its name.
  const unverified = brand.verified ? '' : html` <span class="badge">unverified</span>`;
  const a = story.advisory;
  const cite = (c: string) => html`<a href="#${c}" class="cite-ref">[${c}]</a>`;
  const summary =
    mode === 'compact'
      ? ''
      : html`<section class="card" aria-labelledby="summary"><h2 id="summary">Summary</h2><ul>${a.executive_summary
          // Only what the sources say: a sentence citing none was the team's context in
          // proposals applied before contexts stayed private.
          .filter((item) => item.cites.length > 0)
          .map((item) => html`<li>${item.text} ${item.cites.map(cite)}</li>`)}</ul></section>
${
  a.sources.length
    ? html`<section class="card" aria-labelledby="sources"><h2 id="sources">Sources</h2><ol>${a.sources.map(
        (s) =>
          html`<li id="${s.id}"><strong>[${s.id}]</strong> <a href="${safeHref(s.url)}" rel="noopener nofollow" lang="${notes.get(s.id)?.language ?? ''}">${s.title}</a> <span class="muted">· ${s.publisher} · ${sourceDate(s.published_at, notes.get(s.id)?.undated)}${languageTag(notes.get(s.id)?.language)}</span></li>`,
      )}</ol></section>`
    : ''
}`;
  const plan =
    mode === 'full' && a.phases
      ? html`<section class="card" aria-labelledby="plan"><h2 id="plan">Response plan</h2><ol class="plan">${a.phases.map(
          (p) =>
            html`<li><strong>${p.title}</strong> <span class="badge">${p.status === 'done' ? 'done' : 'open'}</span><ul>${p.actions.map((x) => html`<li>${x}</li>`)}</ul></li>`,
        )}</ol></section>`
      : '';
  const top = html`<header class="top"><div class="bar"><span class="logo">${brandName}${unverified}</span><span class="small" style="color:#cfd6e4">Media briefing</span></div></header>`;
  return shell(
    story.title,
    top,
    html`<article class="narrow briefing">
<p class="muted small">${
      brand.verified
        ? html`Briefing shared by ${brandName}`
        : html`Briefing shared by a team monitoring ${brandName}: unverified, ${brand.host} has not confirmed it`
    } · detected ${story.detected_at.slice(0, 10)}</p>
<h1>${story.title}</h1>
<p class="facts-line"><span class="badge sev-${story.severity}">Severity: ${story.severity}</span> <span class="badge">Assessment: ${a.assessment}</span> <span class="badge">Urgency: ${a.urgency}</span>${a.spread ? html` <span class="badge">Spread: ${a.spread}</span>` : ''}</p>
${story.brand_note ? html`<section class="card statement" aria-labelledby="statement"><h2 id="statement">${brand.verified ? html`Statement from ${brandName}` : html`Statement (unverified)`}</h2><blockquote>${story.brand_note.text}</blockquote><p class="small muted">Published ${story.brand_note.published_at.slice(0, 10)}</p></section>` : ''}
${summary}
${plan}
<footer class="small muted"><p>This briefing shows the advisory as it stands now; it changes when ${brandName} updates it. <span class="no-print">Print it, or save it as a PDF, from your browser.</span></p></footer>
</article>`,
  );
}
