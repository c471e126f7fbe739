import nodemailer, { type Transporter } from 'nodemailer';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';
import { newId } from '../ids.js';
import { EMAIL_SEND } from '../jobs/kinds.js';
import { enqueue } from '../jobs/queue.js';

export interface Email {
  accountId: string | null;
  to: string;
  kind: 'assignment' | 'invitation' | 'onboarding' | 'notice' | 'alert' | 'digest';
  subject: string;
  text: string;
  /** Extra headers, e.g. List-Unsubscribe on alerts and digests. */
  headers?: Record<string, string>;
  /**
   * The sender's display name, for an email sent on a partner's behalf (its white-label
   * name); the address stays MAIL_FROM's, so the mail is still ours to send.
   */
  fromName?: string;
  /**
   * A stable id for an email that must go once (a digest): queued again, it is not
   * queued twice.
   */
  id?: string;
}

/**
 * Records an email and the job that sends it, inside the caller's transaction: the email
 * exists exactly when the change it announces does, and a slow or failing mail server
 * never blocks or undoes that change.
 */
export async function queueEmail(db: Db, email: Email, now: string): Promise<string> {
  const id = email.id ?? newId('eml');
  const inserted = await db
    .insertInto('outgoing_emails')
    .values({
      id,
      account_id: email.accountId,
      to_address: email.to,
      kind: email.kind,
      subject: email.subject,
      text_body: email.text,
      html_body: null,
      headers: email.headers ? JSON.stringify(email.headers) : null,
      from_name: email.fromName ?? null,
      status: 'queued',
      error: null,
      created_at: now,
      sent_at: null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
    await enqueue(db, EMAIL_SEND, { email: id }, { now });
  }
  return id;
}

const transports = new WeakMap<AppContext, Transporter>();

/**
 * The `email.send` job. With SMTP_URL the message goes out through nodemailer (a failure
 * throws, so the job is retried with backoff); without it the email stays in the outbox,
 * where the operator reads it (`brs outbox`). Running twice sends once: a sent email is
 * left alone.
 */
export async function sendEmailJob(app: AppContext, payload: { email: string }) {
  const email = await app.db
    .selectFrom('outgoing_emails')
    .selectAll()
    .where('id', '=', payload.email)
    .executeTakeFirst();
  if (!email || email.status === 'sent' || email.status === 'outbox') return { skipped: true };
  if (!app.config.smtpUrl) {
    await app.db
      .updateTable('outgoing_emails')
      .set({ status: 'outbox' })
      .where('id', '=', email.id)
      .execute();
    return { outbox: true };
  }
  let transport = transports.get(app);
  if (!transport) {
    // Time limits well inside the job's 5-minute lease, so a hung server cannot make
    // another process send the same email again.
    transport = nodemailer.createTransport({
      url: app.config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 60_000,
    });
    transports.set(app, transport);
  }
  try {
    await transport.sendMail({
      from: email.from_name
        ? { name: email.from_name, address: mailAddress(app.config.mailFrom) }
        : app.config.mailFrom,
      to: email.to_address,
      subject: email.subject,
      text: email.text_body,
      ...(email.headers && { headers: JSON.parse(email.headers) as Record<string, string> }),
    });
  } catch (e) {
    await app.db
      .updateTable('outgoing_emails')
      .set({ error: (e as Error).message })
      .where('id', '=', email.id)
      .execute();
    throw e;
  }
  await app.db
    .updateTable('outgoing_emails')
    .set({ status: 'sent', error: null, sent_at: app.clock.now().toISOString() })
    .where('id', '=', email.id)
    .execute();
  return { sent: true };
}

/** The address of MAIL_FROM (`Name <address>` or a bare address). */
const mailAddress = (from: string) => /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();

/** The newest emails with their delivery state, for the operator (`brs outbox`). */
export async function listOutbox(app: AppContext, limit: number) {
  const rows = await app.db
    .selectFrom('outgoing_emails')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((e) => ({
    id: e.id,
    to: e.to_address,
    kind: e.kind,
    subject: e.subject,
    from_name: e.from_name,
    text: e.text_body,
    status: e.status,
    error: e.error,
    created_at: e.created_at,
    sent_at: e.sent_at,
  }));
}
