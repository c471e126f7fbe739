import type { FastifyRequest } from 'fastify';
import { mayRun } from '../../operations/execute.js';
import type { Operation } from '../../operations/operation.js';
import { formField } from '../forms.js';
import { type Html, html } from '../html.js';
import type { View } from './guard.js';
import { appPage, csrfField } from './layout.js';
import { actorOf } from './session.js';

/** What a destructive action says before it is done. */
export interface Confirmation {
  title: string;
  /** What will happen, in full: who loses what, what follows. */
  consequence: Html;
  /** The button that does it, naming the action ("Revoke the key"). */
  confirm: string;
  /** Where "Keep it" goes back to. */
  back: string;
}

/**
 * Destructive actions are asked twice, without JavaScript: their forms post without
 * `confirmed`, which answers this page, saying what will happen; its button posts the
 * same fields again with `confirmed=yes`. Null once confirmed, and for a caller the
 * operation refuses anyway (nothing to confirm: the refusal is the answer): do it.
 */
export function confirmationPage(
  req: FastifyRequest,
  v: View,
  op: Operation,
  fields: readonly string[],
  c: Confirmation,
): string | null {
  if (formField(req, 'confirmed') === 'yes' || !mayRun(actorOf(v.session), op)) return null;
  return appPage(
    v,
    c.title,
    html`<h1>${c.title}</h1>
<div class="card"><p>${c.consequence}</p>
<form class="inline" method="post" action="${req.url}">${csrfField(v.csrf)}${fields.map(
      (f) => html`<input type="hidden" name="${f}" value="${formField(req, f)}">`,
    )}<input type="hidden" name="confirmed" value="yes"><button type="submit" class="danger">${c.confirm}</button></form>
<a href="${c.back}">Keep it and go back</a></div>`,
  );
}
