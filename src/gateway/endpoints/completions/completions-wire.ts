import type { FinishReason, Usage } from '../../../shared/api/chat-response'
import type { TextCompletion } from '../../../shared/api/completions-response'
import { STOPPED_COMMENT } from '../../../shared/api/stream-notes'
import { OPENAI_ERRORS } from '../../http/error-format'
import type { CompletionContext } from '../../pipeline/completion-context'
import { sseComment, sseData } from '../../sse/frames'
import type { AssembledReply, StreamEncoder, StreamEnding, WireFormat } from '../endpoint'

const DONE = 'data: [DONE]\n\n'

/**
 * Completions on the wire, as OpenAI writes them: `text_completion` objects. A stream is the
 * prompt first when `echo` asks for it, one chunk per piece of text, a chunk with an empty text
 * and the finish reason, the usage chunk (`choices: []`) when `stream_options.include_usage`
 * asks, then `[DONE]`. A stopped stream finishes with `stop` (as its JSON form does), then the
 * stop comment. Reasoning and tool calls have no place in this API and are not written. Errors
 * are OpenAI's envelope. `echo` is the prompt, for a request that asked for it back.
 */
export function completionsWire(echo: string | undefined): WireFormat {
  return {
    ...OPENAI_ERRORS,
    stream: (context) => new CompletionsStreamEncoder(context, echo),
    json: (context, reply: AssembledReply): TextCompletion => ({
      id: context.id,
      object: 'text_completion',
      created: context.created,
      model: context.model.id,
      choices: [{ text: (echo ?? '') + reply.content, index: 0, logprobs: null, finish_reason: reply.finishReason }],
      usage: reply.usage,
    }),
  }
}

const NOTHING: readonly string[] = []

class CompletionsStreamEncoder implements StreamEncoder {
  private readonly head: string

  constructor(
    private readonly context: CompletionContext,
    private readonly echo: string | undefined,
  ) {
    this.head =
      `{"id":${JSON.stringify(context.id)},"object":"text_completion","created":${context.created},` +
      `"model":${JSON.stringify(context.model.id)},"choices":`
  }

  start(): string | readonly string[] {
    return this.echo === undefined ? NOTHING : this.text(this.echo, null)
  }

  content(text: string): string {
    return this.text(text, null)
  }

  reasoning(): readonly string[] {
    return NOTHING
  }

  toolCall(): readonly string[] {
    return NOTHING
  }

  end(ending: StreamEnding, usage: () => Usage): string[] {
    const frames = [this.text('', ending.kind === 'finished' ? ending.reason : 'stop')]
    if (ending.kind === 'stopped') frames.push(sseComment(STOPPED_COMMENT[ending.by]))
    if (this.context.request.includeUsage) frames.push(sseData(this.head + `[],"usage":${JSON.stringify(usage())}}`))
    frames.push(DONE)
    return frames
  }

  private text(text: string, finishReason: FinishReason | null): string {
    return sseData(this.head + `[{"text":${JSON.stringify(text)},"index":0,"logprobs":null,"finish_reason":${JSON.stringify(finishReason)}}]}`)
  }
}
