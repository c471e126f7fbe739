import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { startService, type TestService } from '../support/harness.js';
import { PortalClient } from '../support/portal-client.js';

/** A person's profile: name, time zone, password. */
let svc: TestService;
let acme: string;

beforeAll(async () => {
  svc = await startService({}, { runJobs: false });
  acme = await createAccount(svc.app, 'Acme', 'pro');
});
afterAll(() => svc.close());

async function person(email: string, password = 'correct horse battery') {
  await addUser(svc.app, { accountId: acme, email, password, role: 'admin' });
  const c = new PortalClient(svc.url);
  await c.signIn(email, password);
  await c.get('/app/profile');
  return c;
}

describe('profile', () => {
  it('a name shows in the top bar and the activity; a time zone is chosen from the list', async () => {
    const mia = await person('mia@acme.example');
    expect(
      (await mia.post('/app/profile', { name: '  Mia   Novak ', time_zone: 'Europe/Paris' }))
        .location,
    ).toBe('/app/profile?done=profile');
    const page = (await mia.get('/app/profile')).html;
    expect(page).toContain('value="Mia Novak"');
    expect(page).toContain('<option value="Europe/Paris" selected>');
    expect(page).toContain('<meta name="time-zone" content="Europe/Paris">');
    expect(page).toContain('title="Your profile (admin)">Mia Novak</a>');
    await mia.post('/app/team/invite', { email: 'ana@acme.example' });
    expect((await mia.get('/app/activity')).html).toContain('Mia Novak invited ana@acme.example');

    const bad = await mia.post('/app/profile', { name: 'Mia', time_zone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Time_zone: not a time zone');
    const control = await mia.post('/app/profile', { name: 'Mia\u0007', time_zone: '' });
    expect(control.status).toBe(400);
    // A name may not pass for an address in the activity.
    expect(
      (await mia.post('/app/profile', { name: 'owner@acme.example', time_zone: '' })).status,
    ).toBe(400);
    // UTC and the aliases the offered list leaves out are zones too.
    for (const zone of ['UTC', 'Asia/Kolkata', 'Europe/Kyiv']) {
      await mia.get('/app/profile');
      expect((await mia.post('/app/profile', { name: 'Mia', time_zone: zone })).status, zone).toBe(
        303,
      );
      expect((await mia.get('/app/profile')).html).toContain(`<option value="${zone}" selected>`);
    }
    // Cleared: the email again, and the browser's zone.
    await mia.get('/app/profile');
    await mia.post('/app/profile', { name: '', time_zone: '' });
    const cleared = (await mia.get('/app/profile')).html;
    expect(cleared).not.toContain('name="time-zone"');
    expect(cleared).toContain('>mia@acme.example</a>');
  });

  it('a password change needs the current one and signs out every other browser', async () => {
    const here = await person('max@acme.example');
    const elsewhere = new PortalClient(svc.url);
    await elsewhere.signIn('max@acme.example', 'correct horse battery');
    expect((await elsewhere.get('/app')).status).toBe(200);

    const wrong = await here.post('/app/profile/password', {
      current_password: 'not it at all',
      new_password: 'a brand new password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('Current_password: not your current password');
    const short = await here.post('/app/profile/password', {
      current_password: 'correct horse battery',
      new_password: 'short',
    });
    expect(short.status).toBe(400);
    expect((await elsewhere.get('/app')).status).toBe(200);

    const before = here.cookies.get('brs_session');
    const changed = await here.post('/app/profile/password', {
      current_password: 'correct horse battery',
      new_password: 'a brand new password',
    });
    expect(changed.location).toBe('/app/profile?done=password');
    // This browser goes on in a new session; the other one is signed out.
    expect(here.cookies.get('brs_session')).not.toBe(before);
    expect((await here.get('/app')).status).toBe(200);
    expect((await elsewhere.get('/app')).location).toMatch(/^\/signin/);
    const old = new PortalClient(svc.url);
    expect((await old.signIn('max@acme.example', 'correct horse battery')).status).not.toBe(303);
    expect((await old.signIn('max@acme.example', 'a brand new password')).status).toBe(303);

    // Guessing the current password from an open session is limited, as sign-in is.
    await here.get('/app/profile');
    const answers = [];
    for (let i = 0; i < 6; i++) {
      answers.push(
        (
          await here.post('/app/profile/password', {
            current_password: `guess number ${i}`,
            new_password: 'whatever it is',
          })
        ).status,
      );
    }
    expect(answers.at(-1)).toBe(429);
  });
});
