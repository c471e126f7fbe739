import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const grantDelegation = defineOperation({
  id: 'grant_delegation',
  method: 'POST',
  path: '/v1/delegations',
  summary: 'Grant a delegation (never allowed for a key)',
  description:
    'Always 403: a delegation is granted by the client in the app, never by an API key, so a key can never self-delegate.',
  input: z.strictObject({}),
  output: z.object({}),
  access: { never: true },
  hints: { readOnly: false, destructive: false, openWorld: false },
  async handler() {
    throw new Error('unreachable: access is never granted');
  },
});
