import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const grantDelegation = defineOperation({
  id: 'grant_delegation',
  summary: 'Grant a delegation (never allowed for a key)',
  description:
    'Always 403: a delegation is granted by the client in the app, never by an API key, so a key can never self-delegate.',
  input: z.strictObject({}),
  output: z.object({}),
  access: { never: true },
  rest: { method: 'POST', path: '/v1/delegations' },
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async handler() {
    throw new Error('unreachable: access is never granted');
  },
});
