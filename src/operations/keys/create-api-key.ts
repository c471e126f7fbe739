import { z } from 'zod';
import { defineOperation } from '../operation.js';

export const createApiKey = defineOperation({
  id: 'create_api_key',
  summary: 'Create an API key (never allowed for a key)',
  description:
    'Always 403: keys are created in the app by an owner or admin; a key can never create keys.',
  input: z.strictObject({}),
  output: z.object({}),
  access: { never: true },
  rest: { method: 'POST', path: '/v1/api-keys' },
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  async handler() {
    throw new Error('unreachable: access is never granted');
  },
});
