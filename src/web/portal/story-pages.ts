import type { FastifyInstance } from 'fastify';
import { UNIT_PRICE_CENTS } from '../../billing/billing.js';
import type { AppContext } from '../../context.js';
import { pageError } from '../../errors.js';
import { addStoryContext } from '../../operations/advisory/add-story-context.js';
import { applyAdvisoryProposal } from '../../operations/advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from '../../operations/advisory/dismiss-advisory-proposal.js';
import { triggerAdvisory } from '../../operations/advisory/trigger-advisory.js';
import { deleteBrandNote } from '../../operations/notes/delete-brand-note.js';
import { postBrandNote } from '../../operations/notes/post-brand-note.js';
import type { Operation } from '../../operations/operation.js';
import { setPhaseDue } from '../../operations/portal/phase-due.js';
import {
  addGuest,
  reenableStoryShare,
  removeGuest,
  stopSharing,
} from '../../operations/portal/shares.js';
import { closeStory, reopenStory } from '../../operations/portal/story-status.js';
import { unlockOnSubscription } from '../../operations/portal/unlock-metered.js';
import { createShare } from '../../operations/shares/create-share.js';
import { getStoryFromUrlJob } from '../../operations/stories/get-story-from-url-job.js';
import { assignPhase } from '../../operations/teamwork/assign-phase.js';
import { assignStory } from '../../operations/teamwork/assign-story.js';
import { completePhase } from '../../operations/teamwork/complete-phase.js';
import { unassignPhase } from '../../operations/teamwork/unassign-phase.js';
import { unassignStory } from '../../operations/teamwork/unassign-story.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { type Confirmation, confirmationPage } from './confirm.js';
import { type Output, portalRoutes, run } from './guard.js';
import { appPage, problemPage } from './layout.js';
import { jobOutcome } from './live.js';
import { fromUrlJobPath, STORIES_PATH, storyPath } from './paths.js';
import { storyPage } from './story-page.js';

/** The story page, with every action the spec gives a team, and a story-from-URL job's page. */
export function mountStoryPages(fastify: FastifyInstance, app: AppContext) {
  const routes = portalRoutes(fastify, app, 'stories');

  // A story-from-URL job while it runs, then its outcome: the story, or why there is none.
  routes.get('/app/stories/from-url/:brand/:job', async (req, reply, v) => {
    const brand = req.params.brand ?? '';
    const job = req.params.job ?? '';
    try {
      const r = await run(app, v, getStoryFromUrlJob, { brand, job });
      const outcome = jobOutcome(brand, r);
      if (outcome.go) return reply.redirect(outcome.go, 303);
      const live = fromUrlJobPath(brand, job);
      return appPage(
        v,
        'Adding a story',
        html`<h1>Adding a story from an article</h1>
${
  outcome.reason
    ? html`<div class="card error" role="alert"><p>${outcome.reason}</p></div>`
    : html`<div class="card" data-live="${live}/status" aria-live="polite">
<p><span data-live-state>${outcome.state}</span></p>
<p class="small muted">This page follows the article until its story is ready (about a minute at most), then opens it. <a href="${live}">Check again</a></p></div>`
}
<p><a href="${STORIES_PATH}">Back to the stories</a></p>`,
      );
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      const page = { title: 'Adding a story', heading: 'Adding a story from an article' };
      const back = { href: STORIES_PATH, label: 'Back to the stories' };
      return reply.code(status).send(problemPage(v, page, text, back));
    }
  });

  const storyRoute = '/app/stories/:brand/:event';
  routes.get(storyRoute, async (req, reply, v) =>
    storyPage(app, v, req.params.brand ?? '', req.params.event ?? '', req.query, reply),
  );

  /**
   * The story page's actions: each a form posting here with `action`, run as the same
   * operation REST runs, then back to the page (or the page again with the error).
   */
  const actions: Record<
    string,
    {
      op: Operation;
      input: (f: (n: string) => string) => object;
      done: string;
      /** A destructive action's question (confirm.ts), with the fields it carries. */
      ask?: {
        fields: string[];
        question: (f: (n: string) => string, back: string) => Confirmation;
      };
    }
  > = {
    unlock: { op: triggerAdvisory, input: () => ({}), done: 'unlocked' },
    'unlock-metered': {
      op: unlockOnSubscription,
      input: () => ({}),
      done: 'unlocked',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: `Unlock this advisory for ${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR?`,
          consequence: html`No included unit is left this month, so one unit (${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR) is metered on your subscription and invoiced with the month. Nothing else is charged, and an advisory once unlocked stays unlocked for the whole team.`,
          confirm: `Unlock for ${(UNIT_PRICE_CENTS / 100).toFixed(2)} EUR`,
          back,
        }),
      },
    },
    'assign-story': {
      op: assignStory,
      input: (f) => ({ assignee: f('assignee'), invite: f('invite') === 'on' }),
      done: 'assigned',
    },
    'unassign-story': { op: unassignStory, input: () => ({}), done: 'unassigned' },
    'assign-phase': {
      op: assignPhase,
      input: (f) => ({
        phase: Number(f('phase')),
        assignee: f('assignee'),
        invite: f('invite') === 'on',
      }),
      done: 'assigned',
    },
    'unassign-phase': {
      op: unassignPhase,
      input: (f) => ({ phase: f('phase') }),
      done: 'unassigned',
    },
    'phase-due': {
      op: setPhaseDue,
      input: (f) => ({ phase: f('phase'), due: f('due') }),
      done: 'due',
    },
    'phase-done': {
      op: completePhase,
      input: (f) => ({ phase: Number(f('phase')), ...(f('comment') && { comment: f('comment') }) }),
      done: 'done',
    },
    context: { op: addStoryContext, input: (f) => ({ context: f('context') }), done: 'context' },
    apply: { op: applyAdvisoryProposal, input: () => ({}), done: 'applied' },
    dismiss: { op: dismissAdvisoryProposal, input: () => ({}), done: 'dismissed' },
    note: { op: postBrandNote, input: (f) => ({ text: f('text') }), done: 'note' },
    'delete-note': {
      op: deleteBrandNote,
      input: () => ({}),
      done: 'note-deleted',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: 'Delete the Brand Note?',
          consequence: html`The brand's official statement is taken off the story at once: off the API's and MCP's answers, and off the pages of the story's shares. A new note can be published later.`,
          confirm: 'Delete the note',
          back,
        }),
      },
    },
    close: {
      op: closeStory,
      input: (f) => ({
        reason: f('reason'),
        // The phrase goes only with "not about us", and only when asked for: the form
        // offers one filled in, which choosing another reason must not send.
        ...(f('reason') === 'not_about_us' &&
          f('teach') === 'on' &&
          f('exclude_phrase').trim() && { exclude_phrase: f('exclude_phrase') }),
      }),
      done: 'closed',
    },
    reopen: { op: reopenStory, input: () => ({}), done: 'reopened' },
    'add-guest': { op: addGuest, input: (f) => ({ email: f('email') }), done: 'guest-added' },
    'remove-guest': {
      op: removeGuest,
      input: (f) => ({ email: f('email') }),
      done: 'guest-removed',
      ask: {
        fields: ['email'],
        question: (f, back) => ({
          title: `Remove ${f('email')} from the share?`,
          consequence: html`${f('email')} can no longer open the shared story: their sign-in links stop working from their next visit. You can invite them again.`,
          confirm: 'Remove the guest',
          back,
        }),
      },
    },
    'stop-sharing': {
      op: stopSharing,
      input: () => ({}),
      done: 'share-stopped',
      ask: {
        fields: [],
        question: (_f, back) => ({
          title: 'Stop sharing this story?',
          consequence: html`Its page stops answering at once, for anyone with the link and for its guests, and it leaves the shares index. Sharing it again later makes a new link.`,
          confirm: 'Stop sharing',
          back,
        }),
      },
    },
    'reenable-share': { op: reenableStoryShare, input: () => ({}), done: 'share-reenabled' },
    share: {
      op: createShare,
      input: (f) => ({ access: f('access'), mode: f('mode'), listed: f('listed') === 'on' }),
      done: 'shared',
    },
  };

  routes.post(`${storyRoute}/:action`, async (req, reply, v) => {
    const brand = req.params.brand ?? '';
    const event = req.params.event ?? '';
    const name = req.params.action ?? '';
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) return reply.code(404).send(appPage(v, 'Not found', html`<h1>Not found</h1>`));
    const f = (n: string) => formField(req, n);
    if (action.ask) {
      const back = storyPath(brand, event);
      const page = confirmationPage(
        req,
        v,
        action.op,
        action.ask.fields,
        action.ask.question(f, back),
      );
      if (page) return page;
    }
    try {
      const result = await run(app, v, action.op, { brand, event_uri: event, ...action.input(f) });
      // Past the included units an unlock goes on to checkout.
      if (action.op === triggerAdvisory || action.op === unlockOnSubscription) {
        const { checkout_url } = result as Output<typeof triggerAdvisory>;
        if (checkout_url) return reply.redirect(checkout_url, 303);
      }
      return reply.redirect(`${storyPath(brand, event)}?done=${action.done}`, 303);
    } catch (e) {
      const { status, text } = pageError(e, reply.log);
      return reply.code(status).send(await storyPage(app, v, brand, event, {}, reply, text));
    }
  });
}
