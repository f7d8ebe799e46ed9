import type { GenerationOutcome } from '../generation/run-generation'
import type { ResponseEnding } from './response-builder'

/**
 * How a generation's ending reads in the Responses API. A reply cut at max_output_tokens is
 * `incomplete` (`max_output_tokens`), as is one a content filter ended; one stopped by
 * POST /v1/generations/{id}/stop or by the gateway's shutdown is `incomplete` too, with Mortar's
 * reasons `stopped` and `shutdown` — not `completed`, so that an agent does not take half a reply
 * for a whole one. Any other finish (stop, tool_calls) completes. A client that left gets nothing:
 * undefined.
 */
export function responseEnding(outcome: GenerationOutcome): ResponseEnding | undefined {
  switch (outcome.kind) {
    case 'finished':
      if (outcome.reason === 'length') return { kind: 'incomplete', reason: 'max_output_tokens' }
      if (outcome.reason === 'content_filter') return { kind: 'incomplete', reason: 'content_filter' }
      return { kind: 'completed' }
    case 'stopped':
      if (outcome.reason === 'client_disconnected') return undefined
      return { kind: 'incomplete', reason: outcome.reason === 'shutdown' ? 'shutdown' : 'stopped' }
    case 'failed':
      return { kind: 'failed', code: outcome.error.code ?? 'server_error', message: outcome.error.message }
  }
}
