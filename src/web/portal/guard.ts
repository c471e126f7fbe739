import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import { executeOperation } from '../../operations/execute.js';
import type { Operation } from '../../operations/operation.js';
import { formField } from '../forms.js';
import { html } from '../html.js';
import { publicPage, type Section } from './layout.js';
import { countPortal } from './limits.js';
import { actorOf, csrfToken, csrfValid, type PortalSession, readSession } from './session.js';

export interface View {
  session: PortalSession;
  csrf: string;
  section: Section | null;
}

type Req = FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string> }>;

/**
 * A path of this site to go to after signing in: `/…` but not `//…` or `/\…` (which
 * browsers read as another host). Anything else goes to the stories.
 */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[^\s\p{Cc}]*$/u.test(next) ? next : '/app';
}

/** What an operation answers: the type every view of it reads. */
export type Output<Op> = Op extends Operation<z.ZodType, infer O, z.ZodType> ? z.input<O> : never;

/**
 * Runs an operation of the registry mounted on the portal, as the session's user: the
 * same rules as REST and MCP, and the operation's output type. The input is what the
 * person sent, validated by the operation like any other door's.
 */
export async function run<O extends z.ZodType>(
  app: AppContext,
  view: View,
  op: Operation<z.ZodType, O, z.ZodType>,
  input: unknown,
): Promise<z.input<O>> {
  if (!op.portal) throw new Error(`${op.id} is not mounted on the portal`);
  return (await executeOperation(app, op, actorOf(view.session), input, 'portal')).body;
}

/**
 * The signed-in portal's routes. A GET without a session goes to sign-in and comes back;
 * a POST must carry the form's anti-forgery token and, when the browser says where it
 * comes from, come from this site, and counts in its person's window (limits.ts).
 */
export function portalRoutes(fastify: FastifyInstance, app: AppContext, section: Section | null) {
  const origin = new URL(app.config.baseUrl).origin;
  const view = async (req: Req, reply: FastifyReply): Promise<View | null> => {
    const session = await readSession(app, req);
    if (!session) return null;
    return { session, csrf: await csrfToken(app, req, reply), section };
  };
  return {
    get(path: string, handler: (req: Req, reply: FastifyReply, v: View) => Promise<unknown>) {
      fastify.get(path, async (req: Req, reply) => {
        const v = await view(req, reply);
        if (!v) return reply.redirect(`/signin?next=${encodeURIComponent(req.url)}`, 303);
        return handler(req, reply, v);
      });
    },
    post(path: string, handler: (req: Req, reply: FastifyReply, v: View) => Promise<unknown>) {
      fastify.post(path, async (req: Req, reply) => {
        const from = req.headers.origin;
        if ((from && from !== origin) || !(await csrfValid(app, req, formField(req, '_csrf')))) {
          return reply.code(403).send(forgedPage());
        }
        const v = await view(req, reply);
        if (!v) return reply.redirect('/signin', 303);
        await countPortal(app, 'post', v.session.userId);
        return handler(req, reply, v);
      });
    },
  };
}

export function forgedPage(): string {
  return publicPage(
    'Form expired',
    html`<h1>This form has expired</h1>
<p>The page was open too long or came from another site. Go back, reload the page and try again.</p>`,
  );
}
