import { parseCompletionsRequest } from '../../../shared/api/completions-request'
import { completionsForm } from '../../backends/upstream/forms/completions-form'
import { invalidRequest } from '../../errors'
import { randomHex } from '../../random-id'
import type { Endpoint } from '../endpoint'
import { completionsWire } from './completions-wire'

const FORMS = [completionsForm]

/**
 * POST /v1/completions: OpenAI's legacy completions API, for IDE autocomplete. The prompt is text
 * the model reads as it is (a FIM-rendered prompt is already in the model's own tokens), never
 * wrapped in the chat template; a model server must offer /completions itself (501 otherwise).
 */
export const completionsEndpoint: Endpoint = {
  path: '/completions',
  newId: () => 'cmpl-' + randomHex(12),
  accept(body) {
    const parsed = parseCompletionsRequest(body)
    if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
    const { request } = parsed
    return {
      model: request.model,
      request: {
        prompt: { kind: 'text', text: request.prompt, suffix: request.suffix },
        stream: request.stream,
        includeUsage: request.includeUsage,
        maxTokens: request.maxTokens,
        user: request.user,
        extraFields: request.extraFields,
        forms: FORMS,
      },
      ...(request.echo ? { wire: completionsWire(request.prompt) } : {}),
    }
  },
  wire: completionsWire(undefined),
}
