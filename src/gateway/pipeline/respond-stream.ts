import type { ServerResponse } from 'node:http'
import type { LiveGeneration } from '../generation/generation-registry'
import { runGeneration } from '../generation/run-generation'
import { ChunkEncoder } from '../sse/chunk-encoder'
import { SseWriter } from '../sse/sse-writer'
import { usageOf, type CompletionContext } from './completion-context'

/**
 * Stage: stream the reply as server-sent events, in the reference's order: the role chunk, the
 * content (or tool-call) chunks, the finish chunk without delta, the usage chunk when asked, then
 * `[DONE]`. A stopped generation sends no finish chunk but still usage and `[DONE]`; a failed one
 * sends one error event and closes without `[DONE]`, never a made-up `stop`.
 */
export async function respondWithStream(
  res: ServerResponse,
  context: CompletionContext,
  live: LiveGeneration,
): Promise<void> {
  const writer = new SseWriter(res)
  const chunks = new ChunkEncoder(context.id, context.created, context.model.id)
  writer.open()
  await writer.data(chunks.role())

  const result = await runGeneration(
    context.model.backend,
    { request: context.request, maxTokens: context.plan.maxTokens },
    live,
    {
      content: (text) => writer.data(chunks.content(text)),
      toolCallStart: (index, id, name) =>
        writer.data(chunks.toolCall({ index, id, type: 'function', function: { name, arguments: '' } })),
      toolCallArguments: (index, text) => writer.data(chunks.toolCall({ index, function: { arguments: text } })),
    },
  )

  const { outcome } = result
  if (outcome.kind === 'failed') {
    await writer.data(JSON.stringify(outcome.error.toEnvelope()))
    return writer.abandon()
  }
  if (outcome.kind === 'stopped' && outcome.reason === 'client_disconnected') return writer.abandon()
  if (outcome.kind === 'finished') await writer.data(chunks.finish(outcome.reason))
  if (context.request.includeUsage) await writer.data(chunks.usage(usageOf(context, result)))
  writer.done()
}
