import type { FastifyReply } from 'fastify';
import { UNIT_PRICE_CENTS } from '../../billing/billing.js';
import type { AppContext } from '../../context.js';
import { phaseDues } from '../../domain/assignments.js';
import { actorNames } from '../../domain/audit.js';
import { CLOSE_REASON_TEXT, CLOSE_REASONS, type CloseReason } from '../../domain/story-closing.js';
import { sourceNotes, storyReasons } from '../../domain/story-view.js';
import { hasMeteredSubscription, includedUnitsLeft } from '../../domain/unlock.js';
import { pageError } from '../../errors.js';
import { mayRun } from '../../operations/execute.js';
import { listActivity } from '../../operations/portal/activity.js';
import { storyShare } from '../../operations/portal/shares.js';
import { closingOptions } from '../../operations/portal/story-status.js';
import { listTeam } from '../../operations/portal/team.js';
import { unlockOnSubscription } from '../../operations/portal/unlock-metered.js';
import { getStory } from '../../operations/stories/get-story.js';
import { meanSentiment } from '../../pipeline/sentiment.js';
import { brandFor } from '../../policy.js';
import {
  type Html,
  html,
  languageTag,
  safeHref,
  sentimentTag,
  sentimentText,
  sourceDate,
} from '../html.js';
import { activityTable, type Entry } from './activity-pages.js';
import { type Output, run, type View } from './guard.js';
import { appPage, csrfField, notice, problem, when } from './layout.js';
import { storyPath } from './paths.js';
import { failedProposalCard, proposalCard, proposalFailure } from './proposal-card.js';
import { actorOf } from './session.js';

type Query = Record<string, string>;

export const sevBadge = (s: string) => html`<span class="badge sev-${s}">${s}</span>`;

/** When an open phase is due, and whether that day has passed (UTC). */
export function dueBadge(status: string, due: string | undefined, today: string) {
  if (!due || status === 'done') return '';
  return due < today
    ? html` <span class="badge sev-critical">overdue since ${due}</span>`
    : html` <span class="badge${due === today ? ' sev-medium' : ''}">due ${due === today ? 'today' : due}</span>`;
}

/** The story's status, and why it was closed when a person closed it. */
function statusText(status: string, entries: Entry[]) {
  const closed = status === 'closed' ? entries.find((e) => e.action === 'story.closed') : undefined;
  const reason = closed?.details.reason as CloseReason | undefined;
  return html`<span class="status">${status.replace('_', ' ')}</span>${reason && CLOSE_REASON_TEXT[reason] ? html` <span class="muted">(${CLOSE_REASON_TEXT[reason]}, ${closed!.actor_name})</span>` : ''}`;
}

/**
 * The story page as a workspace: the advisory, sources, plan and context beside a panel
 * of the story's facts, Brand Note and share, then its activity. Every form is one the
 * reader may use (the page's actions post to story-pages.ts).
 */
export async function storyPage(
  app: AppContext,
  v: View,
  brand: string,
  event: string,
  query: Query,
  reply: FastifyReply,
  error?: string,
): Promise<string> {
  let view: Output<typeof getStory>;
  try {
    view = await run(app, v, getStory, { brand, event_uri: event });
  } catch (e) {
    const { status, text } = pageError(e, reply.log);
    reply.code(status);
    return appPage(
      v,
      'Not found',
      html`<h1>${text}</h1><p><a href="/app/stories">Back to the stories</a></p>`,
    );
  }
  const { story } = view;
  const a = story.advisory;
  const path = storyPath(brand, event);
  const form = (action: string, body: Html | string, label: string, cls = '') =>
    html`<form class="inline" method="post" action="${path}/${action}">${csrfField(v.csrf)}${body}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
  const sources = new Map(a.sources.map((s) => [s.id, s]));
  const notes = await sourceNotes(app.db, event);
  const storySentiment = meanSentiment([...notes.values()].map((n) => n.sentiment));
  // The reasons quote the sources, which the paywall keeps until the story is unlocked.
  const reasons = a.locked ? [] : await storyReasons(app.db, event);
  // A citation previews its source on hover or focus, and leads to it.
  let cites = 0;
  const cite = (id: string) => {
    const source = sources.get(id);
    if (!source) return html`<span>[${id}]</span>`;
    const tip = `cite-${++cites}`;
    return html`<span class="cite"><a href="#source-${id}" aria-describedby="${tip}">[${id}]</a><span class="tip" role="tooltip" id="${tip}">${source.title} · ${source.publisher}</span></span>`;
  };

  // What this reader may do here, so no form is shown that would be refused: a partner
  // does not assign on a client's brand; an own brand publishes notes once verified.
  const access = await brandFor(app, actorOf(v.session), brand);
  const mayAssign = access.relation === 'own';
  const dues = a.phases
    ? await phaseDues(app.db, access.brand.id, event)
    : new Map<number, string>();
  const today = app.clock.now().toISOString().slice(0, 10);
  const mayPublish = access.relation === 'delegated' || access.brand.verified === 1;
  let unlock: Html | '' = '';
  if (a.locked) {
    const left = await includedUnitsLeft(app, access.brand.id);
    const price = (UNIT_PRICE_CENTS / 100).toFixed(2);
    // Past the included units, a subscription is metered (asked first, owners and admins);
    // without one, the unit is bought once at checkout.
    const metered =
      left === 0 &&
      mayRun(actorOf(v.session), unlockOnSubscription) &&
      (await hasMeteredSubscription(app, v.session.account.id));
    unlock = html`<div class="card"><h2>Unlock the full advisory</h2>
<p>${
      left > 0
        ? html`Unlocking uses <strong>1 of the ${left} included unit${left === 1 ? '' : 's'}</strong> left this month for ${brand}. Nothing is charged.`
        : metered
          ? html`No included units are left this month for ${brand}. Unlocking meters <strong>${price} EUR</strong> on your subscription; you are asked before anything is charged.`
          : html`No included units are left this month for ${brand}. Unlocking costs <strong>${price} EUR</strong>, paid on the next page; nothing is charged before you confirm there.`
    }</p>
${
  left > 0
    ? form('unlock', '', 'Unlock with an included unit')
    : metered
      ? html`${form('unlock-metered', '', `Unlock on the subscription (${price} EUR)…`)} ${form('unlock', '', 'or buy it once at checkout', 'secondary')}`
      : form('unlock', '', `Continue to payment (${(UNIT_PRICE_CENTS / 100).toFixed(0)} EUR)`)
}</div>`;
  }

  const pending = story.advisory_pending;
  // Who marked each phase done, as a person reads it (the answer names the actor's label).
  const doers = await actorNames(
    app,
    (a.phases ?? []).flatMap((p) => (p.done_by ? [p.done_by] : [])),
  );
  const { share } = await run(app, v, storyShare, { brand, event_uri: event });
  const opt = (value: string, label: string, current: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  const { entries } = await run(app, v, listActivity, { brand, event_uri: event });
  const failure = pending ? null : proposalFailure(entries);
  // One picker of the team for every assign form: type to search it, or an address to invite.
  const team = await run(app, v, listTeam, {});
  const teammates = html`<datalist id="teammates">${team.members.map(
    (m) => html`<option value="${m.email}">${m.status === 'invited' ? 'invited' : m.role}</option>`,
  )}</datalist>`;
  const assignForm = (action: string, id: string, label: string, hidden: Html | '') =>
    html`<details class="act"><summary>${label}</summary><form class="row" method="post" action="${path}/${action}">${csrfField(v.csrf)}${hidden}
<div><label for="assign-${id}">Teammate</label><input id="assign-${id}" name="assignee" type="email" list="teammates" required placeholder="Search the team, or an email to invite" autocomplete="off"></div>
<div><label class="small"><input type="checkbox" name="invite" checked> invite them if they are not in the team</label></div>
<button type="submit" class="secondary">Assign</button></form></details>`;
  const closing =
    story.status === 'closed'
      ? null
      : await run(app, v, closingOptions, { brand, event_uri: event });
  const statusActions =
    closing === null
      ? form('reopen', '', 'Reopen', 'secondary')
      : html`<details class="closing"><summary>Close the story</summary>
<form method="post" action="${path}/close">${csrfField(v.csrf)}
<fieldset><legend>Why?</legend>${CLOSE_REASONS.map(
          (r, i) =>
            html`<label><input type="radio" name="reason" value="${r}"${i === 0 ? html` checked` : ''}> ${CLOSE_REASON_TEXT[r]}</label>`,
        )}</fieldset>
${
  closing.may_exclude
    ? html`<p><label><input type="checkbox" name="teach"> If it is not about us: ignore this phrase in new articles from now on</label></p>
<label for="exclude-phrase" class="visually-hidden">The phrase to ignore</label>
<input id="exclude-phrase" name="exclude_phrase" maxlength="100" value="${closing.suggested_phrase ?? ''}">
<p class="small muted">It must name the brand with the words around it (“Acme Road”, not “Acme”); it joins the brand's excluded phrases on the Brands page.</p>`
    : ''
}
<p class="small muted">No new article joins a closed story; reopen it any time.</p>
<button type="submit" class="secondary">Close the story</button></form></details>`;
  return appPage(
    v,
    story.title,
    html`<p class="small"><a href="/app/stories">← Stories</a> · ${brand}</p>
<h1>${story.title}</h1>${notice(query.done)}${problem(error)}
${pending ? proposalCard(pending, { path, csrf: v.csrf, actor: actorOf(v.session), live: a }) : failure ? failedProposalCard(failure) : ''}

<div class="workspace"><div class="main-col">
<h2>Advisory</h2>
<div class="card"><dl class="facts"><dt>Assessment</dt><dd>${a.assessment}</dd><dt>Urgency</dt><dd>${a.urgency}</dd>
${a.spread ? html`<dt>Spread</dt><dd>${a.spread}</dd>` : ''}
<dt>Written by</dt><dd>${generatorName(a.generator)}</dd></dl>
<h3>Executive summary</h3><ul>${a.executive_summary.map(
      (i) => html`<li>${i.text} ${i.cites.map(cite)}</li>`,
    )}</ul></div>
${unlock}
${
  a.sources.length > 0
    ? html`<h2>Sources</h2><ol class="card">${a.sources.map(
        (s) =>
          html`<li id="source-${s.id}"><strong>[${s.id}]</strong> <a href="${safeHref(s.url)}" rel="noopener noreferrer" lang="${notes.get(s.id)?.language ?? ''}">${s.title}</a> <span class="muted small">${s.publisher}${notes.get(s.id)?.author ? html`, by ${notes.get(s.id)!.author}` : ''}, ${sourceDate(s.published_at, notes.get(s.id)?.undated)}${languageTag(notes.get(s.id)?.language)}${sentimentTag(notes.get(s.id)?.sentiment)}</span></li>`,
      )}</ol>`
    : ''
}
${
  a.phases
    ? html`<h2>Response plan</h2><ol class="plan">${a.phases.map(
        (
          p,
        ) => html`<li class="card"><strong>Phase ${p.phase}: ${p.title}</strong> <span class="badge">${p.status === 'done' ? 'done' : p.assignee ? 'assigned' : 'open'}</span>${dueBadge(p.status, dues.get(p.phase), today)}
<ul>${p.actions.map((x) => html`<li>${x}</li>`)}</ul>
<p class="small">${p.assignee ? html`Assigned to ${p.assignee}` : 'Not assigned'}${p.done_by ? html` · done by ${doers.get(p.done_by) ?? p.done_by} ${when(p.done_at)}` : ''}${p.comment ? html` · “${p.comment}”` : ''}</p>
${
  p.status === 'open'
    ? html`${
        mayAssign
          ? html`${assignForm('assign-phase', `phase-${p.phase}`, p.assignee ? `Reassign phase ${p.phase}` : `Assign phase ${p.phase}`, html`<input type="hidden" name="phase" value="${p.phase}">`)}
${p.assignee ? form('unassign-phase', html`<input type="hidden" name="phase" value="${p.phase}">`, 'Unassign', 'secondary') : ''}
<details class="act"><summary>${dues.has(p.phase) ? 'Change the due date' : 'Set a due date'}</summary><form class="row" method="post" action="${path}/phase-due">${csrfField(v.csrf)}<input type="hidden" name="phase" value="${p.phase}">
<div><label for="due-${p.phase}">Due on (empty: none)</label><input id="due-${p.phase}" name="due" type="date" min="${todayIn(v.session.timeZone)}" value="${dues.get(p.phase) ?? ''}"></div>
<button type="submit" class="secondary">Save</button></form></details>`
          : ''
      }
${
  // Only its assignee marks a phase done (complete_phase's rule for people).
  p.assignee === v.session.email
    ? html`<details class="act"><summary>Mark phase ${p.phase} done</summary><form class="row" method="post" action="${path}/phase-done">${csrfField(v.csrf)}<input type="hidden" name="phase" value="${p.phase}">
<div><label for="comment-${p.phase}">Comment (optional)</label><input id="comment-${p.phase}" name="comment" type="text" maxlength="1000"></div>
<button type="submit">Mark done</button></form></details>`
    : ''
}`
    : ''
}</li>`,
      )}</ol>`
    : ''
}
<h2>Context</h2>
<div class="card">
${
  pending
    ? html`<p>The proposal from the context “${pending.context}” is <a href="#proposal">at the top of the page</a>; more context can be added once it is applied or dismissed.</p>`
    : a.locked
      ? html`<p class="muted">Context can be added once the advisory is unlocked: it yields a proposed update of the full advisory.</p>`
      : html`<form method="post" action="${path}/context">${csrfField(v.csrf)}
<label for="context">Add what the coverage does not say</label>
<p class="small muted" id="context-private">Private to your team: it guides the proposed update, and neither the advisory nor a shared page quotes it. To say something publicly, publish a Brand Note.</p>
<textarea id="context" name="context" required maxlength="4000" aria-describedby="context-private"></textarea>
<p><button type="submit">Add context</button> <span class="muted small">A proposed update of the advisory follows; nothing changes until it is applied.</span></p>
${share && !share.suspended_at ? html`<p class="small notice">This story is shared: once applied, the update shows on <a href="${safeHref(share.url)}">its shared page</a> too, ${share.access === 'public' ? 'to anyone with the link' : 'to its guests'}${share.mode === 'compact' ? ' (its headline facts)' : ''}.</p>` : ''}</form>`
}</div>
</div>
<aside class="side-col" aria-label="About this story">
<div class="card"><dl class="facts">
<dt>Severity</dt><dd>${sevBadge(story.severity)}${
      reasons.length > 0
        ? html`<details class="small"><summary>Why ${story.severity}?</summary><ul>${reasons.map(
            (r) => html`<li>${r.topic}: “${r.signal}” in “${r.sentence}” ${cite(r.source)}</li>`,
          )}</ul></details>`
        : ''
    }</dd>
<dt>Topics</dt><dd>${story.topics.join(', ')}</dd>
<dt>Sentiment</dt><dd>${storySentiment === null ? html`<span class="muted">not scored (English coverage only)</span>` : sentimentText(storySentiment)}</dd>
<dt>Detected</dt><dd>${when(story.detected_at)}</dd>
<dt>Status</dt><dd>${statusText(story.status, entries)} ${statusActions}</dd>
<dt>Assignee</dt><dd>${story.assignee ?? html`<span class="muted">nobody</span>`}
${story.assignee && mayAssign ? form('unassign-story', '', 'Unassign', 'secondary') : ''}</dd>
</dl>
${
  mayAssign
    ? assignForm(
        'assign-story',
        'story',
        story.assignee ? 'Reassign the story' : 'Assign the story',
        '',
      )
    : html`<p class="small muted">The story and its phases are assigned by ${brand}'s own team; as their partner you follow the plan, add context and share it here.</p>`
}</div>
<h2>Brand Note</h2>
<div class="card">${
      story.brand_note
        ? html`<blockquote>${story.brand_note.text}</blockquote><p class="small muted">Published ${when(story.brand_note.published_at)}</p>${form('delete-note', '', 'Delete the note', 'danger')}`
        : mayPublish
          ? html`<form method="post" action="${path}/note">${csrfField(v.csrf)}
<label for="note">The brand's official statement</label><textarea id="note" name="text" required maxlength="600"></textarea>
<p><button type="submit">Publish</button></p></form>`
          : html`<p class="muted small">A Brand Note is the brand's official statement, so it needs ${brand} verified first: an owner or admin verifies it on <a href="/app/brands">the Brands page</a>.</p>`
    }</div>
<h2>Share</h2>
<div class="card">
${share ? html`<p>${share.suspended_at ? 'Was shared' : 'Shared'} at <a href="${safeHref(share.url)}" class="wrap">${share.url}</a> · ${share.access === 'public' ? 'anyone with the link' : 'invited guests only'} · ${share.mode}${share.listed ? ' · listed' : ''} ${form('stop-sharing', '', 'Stop sharing', 'danger')}</p>` : html`<p class="muted">Not shared.</p>`}
${
  share?.suspended_at
    ? html`<div class="notice" id="share-suspended"><p><strong>Stopped</strong> ${when(share.suspended_at)}: the partner that created this share no longer acts on this brand. Its page and its guests' links answer “not found” until you re-enable it.</p>
${share.can_reenable ? form('reenable-share', '', 'Re-enable the share') : html`<p class="small muted">The brand's own account can re-enable it.</p>`}</div>`
    : html`<form class="row" method="post" action="${path}/share">${csrfField(v.csrf)}
<div><label for="share-access">Who</label><select id="share-access" name="access">${opt('public', 'Anyone with the link', share?.access ?? 'public')}${opt('guests', 'Invited guests', share?.access ?? 'public')}</select></div>
<div><label for="share-mode">What</label><select id="share-mode" name="mode">${opt('compact', 'Compact', share?.mode ?? 'briefing')}${opt('briefing', 'Briefing', share?.mode ?? 'briefing')}${opt('full', 'Full (guests only)', share?.mode ?? 'briefing')}</select></div>
<div><label><input type="checkbox" name="listed"${share?.listed ? html` checked` : ''}> Listed on the shares page</label></div>
<button type="submit" class="secondary">${share ? 'Save share' : 'Share'}</button></form>`
}
${
  share?.access === 'guests'
    ? html`<h3>Guests</h3>${
        share.guests.length
          ? html`<ul>${share.guests.map(
              (g) =>
                html`<li>${g} ${form('remove-guest', html`<input type="hidden" name="email" value="${g}">`, 'Remove', 'secondary')}</li>`,
            )}</ul>`
          : html`<p class="muted small">No guests yet.</p>`
      }
<form class="row" method="post" action="${path}/add-guest">${csrfField(v.csrf)}
<div><label for="guest-email">Invite a guest</label><input id="guest-email" name="email" type="email" required></div>
<button type="submit" class="secondary">Add guest</button></form>`
    : ''
}</div>
</aside></div>
<h2>Activity</h2>${activityTable(entries)}${teammates}`,
  );
}

/** Who wrote an advisory, in words: the built-in generator, or the model by its name. */
export const generatorName = (generator: string) =>
  generator.startsWith('llm:') ? `the model ${generator.slice(4)}` : 'the built-in generator';

/** Today's date (YYYY-MM-DD) where the person is: the first day a due date may be. */
function todayIn(timeZone: string | null | undefined): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: timeZone ?? 'UTC' }).format(new Date());
  } catch {
    return new Date().toISOString().slice(0, 10);
  }
}
