import type { z } from 'zod';
import {
  type AdvisoryChanges,
  type AdvisoryText,
  advisoryChanges,
  isUnchanged,
} from '../../domain/advisory-changes.js';
import { applyAdvisoryProposal } from '../../operations/advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from '../../operations/advisory/dismiss-advisory-proposal.js';
import { mayRun } from '../../operations/execute.js';
import type { AdvisoryPending } from '../../operations/shapes.js';
import { baseTitle } from '../../pipeline/playbook.js';
import type { Actor } from '../../policy.js';
import { type Html, html } from '../html.js';
import { csrfField } from './layout.js';

/** What the card needs of the page: where the story's forms post, and for whom. */
export interface ProposalCardContext {
  /** The story page's path; its actions post to `<path>/<action>`. */
  path: string;
  csrf: string;
  /** Who reads it: the apply and dismiss forms are theirs only if the operations allow. */
  actor: Actor;
  /** The advisory as it is now, which the proposal is read against. */
  live: AdvisoryText;
}

const FIELD_NAMES = { assessment: 'Assessment', urgency: 'Urgency', spread: 'Spread' } as const;
const quoted = (t: string) => html`“${t}”`;
const phaseName = (n: number, p: { title: string }) => html`phase ${n}, ${quoted(p.title)}`;

/**
 * A phase kept in the proposal: the same, due at another time or by someone else ("(Legal,
 * today)" → "(Legal, within 24 hours)", as the urgency moved), or renamed.
 */
function phaseMove(n: number, before: string, after: string): Html {
  if (before === after) return html`In ${phaseName(n, { title: after })}`;
  const name = baseTitle(after);
  if (baseTitle(before) !== name) {
    return html`Phase ${n} renamed <del>${before}</del> → <ins>${after}</ins>`;
  }
  const tail = (t: string) => t.slice(name.length).trim();
  return html`Phase ${n}, ${quoted(name)}: <del>${tail(before)}</del> → <ins>${tail(after)}</ins>`;
}

/**
 * The proposal's changes in words (advisory-changes.ts): what moves, what is added or
 * goes, and why assessment or urgency moved (`why`, from the stored diff).
 */
function changesList(c: AdvisoryChanges, why: ReadonlyMap<string, string>): Html {
  if (isUnchanged(c)) {
    return html`<p>The proposal changes nothing you would see: the advisory stays as it is.</p>`;
  }
  const actions = (label: string, list: string[], tag: 'ins' | 'del') =>
    list.length
      ? html`<div class="small">${label}: ${list.map((a, i) => html`${i ? '; ' : ''}${tag === 'ins' ? html`<ins>${a}</ins>` : html`<del>${a}</del>`}`)}</div>`
      : '';
  return html`${
    c.fields.length
      ? html`<ul>${c.fields.map((f) =>
          f.before === null
            ? html`<li>${FIELD_NAMES[f.field]}: <ins>${f.after}</ins> (new)</li>`
            : html`<li>${FIELD_NAMES[f.field]}: <del>${f.before}</del> → <ins>${f.after}</ins>${why.has(f.field) ? html`: ${why.get(f.field)}` : ''}</li>`,
        )}</ul>`
      : ''
  }${
    c.summary.length
      ? html`<h3>Executive summary</h3><ul>${c.summary.map((s) =>
          s.kind === 'added'
            ? html`<li>Added: <ins>${s.after}</ins></li>`
            : s.kind === 'removed'
              ? html`<li>Removed: <del>${s.before}</del></li>`
              : html`<li>Reworded: <del>${s.before}</del> → <ins>${s.after}</ins></li>`,
        )}</ul>`
      : ''
  }${
    c.plan.length
      ? html`<h3>Response plan</h3><ul>${c.plan.map((p) =>
          p.kind === 'added'
            ? html`<li>New ${phaseName(p.number, p.after!)}${actions('Actions', [...p.after!.actions], 'ins')}</li>`
            : p.kind === 'removed'
              ? html`<li>Removed ${phaseName(p.number, p.before!)}</li>`
              : html`<li>${phaseMove(p.number, p.before!.title, p.after!.title)}${actions('Actions added', p.actionsAdded, 'ins')}${actions('Actions removed', p.actionsRemoved, 'del')}</li>`,
        )}</ul>`
      : ''
  }<p class="small muted">Everything else stays as it is. Phases already assigned or done keep their people.</p>`;
}

/**
 * The pending proposal, at the top of the story page while one exists. While it is being
 * prepared (the advisor takes up to a minute or two) the card says so and the portal's
 * script (live.ts) asks `<path>/proposal` until it is ready, then puts the ready card,
 * the same HTML as a fresh page would show, in its place.
 */
export function proposalCard(
  pending: z.input<typeof AdvisoryPending>,
  c: ProposalCardContext,
): Html {
  if (pending.status !== 'ready') {
    return html`<div class="card notice" id="proposal" data-live="${c.path}/proposal" aria-live="polite">
<p><strong>A proposed update of the advisory is being prepared</strong> from the context “${pending.context}”.</p>
<p class="small muted"><span data-live-state>It usually takes under a minute.</span> It appears here when it is ready; nothing changes until it is applied. <a href="${c.path}">Check again</a></p></div>`;
  }
  const form = (action: string, label: string, cls = '') =>
    html`<form class="inline" method="post" action="${c.path}/${action}">${csrfField(c.csrf)}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
  return html`<div class="card" id="proposal"><h2>Proposed update of the advisory</h2>
<p>From the context: “${pending.context}”</p>
${pending.proposal ? changesList(advisoryChanges(c.live, pending.proposal), whyOf(pending)) : ''}
<p>${mayRun(c.actor, applyAdvisoryProposal) ? form('apply', 'Apply the proposal') : html`<span class="muted small">An owner applies it.</span>`} ${mayRun(c.actor, dismissAdvisoryProposal) ? form('dismiss', 'Dismiss', 'secondary') : ''}</p></div>`;
}

/** Why each judgement field moved, as the diff keeps it: field → reason. */
const whyOf = (pending: z.input<typeof AdvisoryPending>) =>
  new Map((pending.diff ?? []).flatMap((d) => (d.why ? [[d.path, d.why] as const] : [])));

/** The events of a story's proposals, newest first in the activity. */
const PROPOSAL_EVENTS = new Set([
  'advisory.context_added',
  'advisory.proposal_ready',
  'advisory.applied',
  'advisory.dismissed',
  'advisory.proposal_failed',
]);

/**
 * Why the story's last proposal could not be prepared, when that is the last thing that
 * happened to its proposals (`entries`: its activity, newest first); else null.
 */
export function proposalFailure(
  entries: readonly { action: string; details: Record<string, unknown> }[],
): string | null {
  const last = entries.find((e) => PROPOSAL_EVENTS.has(e.action));
  if (last?.action !== 'advisory.proposal_failed') return null;
  const context = typeof last.details.context === 'string' ? last.details.context : '';
  return `The update from the context “${context}” could not be prepared: the advisor did not answer after several tries. Nothing changed; add the context again to try once more.`;
}

/** Where the proposal card stood, once its proposal could not be prepared. */
export const failedProposalCard = (reason: string) =>
  html`<div class="card error" id="proposal" role="alert"><p>${reason}</p></div>`;
