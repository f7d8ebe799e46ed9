import type { ChatCompletion, Usage } from '../../../shared/api/chat-response'
import { STOPPED_COMMENT } from '../../../shared/api/stream-notes'
import { OPENAI_ERRORS } from '../../http/error-format'
import type { CompletionContext } from '../../pipeline/completion-context'
import { sseComment, sseData } from '../../sse/frames'
import type { AssembledReply, StreamEncoder, StreamEnding, WireFormat } from '../endpoint'
import { ChunkEncoder } from './chunk-encoder'

const DONE = 'data: [DONE]\n\n'

/**
 * Chat completions on the wire. A stream is, in order: the role chunk, the content (or tool-call)
 * chunks, the finish chunk, the usage chunk when asked, then `[DONE]`. A stopped generation sends
 * no finish chunk, a comment saying who stopped it (shared/api/stream-notes.ts), then still usage
 * and `[DONE]`; a failed one sends one error event and closes without `[DONE]`, never a made-up
 * `stop`. The OpenAI dialect gives the finish chunk an empty `delta`, and a stopped stream a
 * finish chunk with `stop` (what its JSON form says too), because OpenAI's SDK helpers refuse a
 * choice without a finish reason. Errors are OpenAI's envelope.
 */
export const chatCompletionsWire: WireFormat = {
  ...OPENAI_ERRORS,
  stream: (context) => new ChatStreamEncoder(context),
  json: chatCompletionObject,
}

class ChatStreamEncoder implements StreamEncoder {
  private readonly chunks: ChunkEncoder

  constructor(private readonly context: CompletionContext) {
    this.chunks = new ChunkEncoder(context.id, context.created, context.model.id, context.dialect.finishChunkHasDelta)
  }

  start(): string {
    return sseData(this.chunks.role())
  }

  content(text: string): string {
    return sseData(this.chunks.content(text))
  }

  reasoning(text: string): string {
    return sseData(this.chunks.reasoning(text))
  }

  toolCall(delta: Parameters<ChunkEncoder['toolCall']>[0]): string {
    return sseData(this.chunks.toolCall(delta))
  }

  end(ending: StreamEnding, usage: () => Usage): string[] {
    const frames: string[] = []
    if (ending.kind === 'finished') frames.push(sseData(this.chunks.finish(ending.reason)))
    else {
      if (this.context.dialect.stoppedStreamFinishes) frames.push(sseData(this.chunks.finish('stop')))
      frames.push(sseComment(STOPPED_COMMENT[ending.by]))
    }
    if (this.context.request.includeUsage) frames.push(sseData(this.chunks.usage(usage())))
    frames.push(DONE)
    return frames
  }
}

function chatCompletionObject(context: CompletionContext, reply: AssembledReply): ChatCompletion {
  const calls = reply.toolCalls
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model.id,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length > 0 && reply.content === '' ? null : reply.content,
          ...(reply.reasoning !== '' ? { reasoning_content: reply.reasoning } : {}),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
  }
}
