import type { FinishReason } from '../../../../shared/api/chat-response'
import type { Tokenizer } from '../../../tokens/tokenizer'
import type { GenerationRequest } from '../../generation-request'
import type { GenerationEvent } from '../../model-backend'
import { upstreamUsage } from '../map-upstream-chunk'
import { promptOfKind, type UpstreamBodyOptions, type UpstreamForm, type UpstreamStreamDecoder, type WholeReply } from '../upstream-form'

/**
 * POST {base}/completions: the legacy completions API, which vLLM, llama.cpp, LM Studio and
 * Ollama offer and some servers lack (then 501). It takes a plain prompt only.
 */
export const completionsForm: UpstreamForm = {
  path: '/completions',
  mayBeMissing: true,
  body: completionsBody,
  decoder: (tokenizer) => new CompletionsChunkMapper(tokenizer),
  whole: wholeCompletion,
}

/**
 * The client's fields as sent (temperature, stop…), the prompt and suffix, the planned
 * max_tokens, an explicit `stream`, and usage asked for in a stream whether or not the client
 * asked (Mortar drops it again for a client that didn't). `echo` is the gateway's, never sent.
 */
function completionsBody(request: GenerationRequest, options: UpstreamBodyOptions): string {
  const prompt = promptOfKind(request, 'text', 'completions')
  const body: Record<string, unknown> = { ...request.extraFields, model: options.model, prompt: prompt.text, stream: request.stream }
  if (prompt.suffix !== undefined) body.suffix = prompt.suffix
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens
  if (request.stream && options.askForUsage) body.stream_options = { include_usage: true }
  if (request.user !== undefined) body.user = request.user
  return JSON.stringify(body)
}


type Choice = { text?: unknown; finish_reason?: unknown } | undefined

const firstChoice = (value: unknown): Choice => {
  const choices = (value as { choices?: unknown } | null)?.choices
  return Array.isArray(choices) ? (choices[0] as Choice) : undefined
}

const finishOf = (choice: Choice): FinishReason | undefined =>
  typeof choice?.finish_reason === 'string' && choice.finish_reason !== '' ? choice.finish_reason : undefined

/** The `text_completion` chunks of one streamed reply: text, finish reason, usage. */
class CompletionsChunkMapper implements UpstreamStreamDecoder {
  private finished = false

  constructor(private readonly tokenizer: Tokenizer) {}

  events(chunk: unknown): GenerationEvent[] {
    const events: GenerationEvent[] = []
    const choice = firstChoice(chunk)
    if (typeof choice?.text === 'string' && choice.text !== '') {
      events.push({ kind: 'content', text: choice.text, tokens: this.tokenizer.count(choice.text) })
    }
    const reason = finishOf(choice)
    if (reason !== undefined) {
      this.finished = true
      events.push({ kind: 'finish', reason })
    }
    const usage = upstreamUsage((chunk as { usage?: unknown } | null)?.usage)
    if (usage !== undefined) events.push({ kind: 'usage', usage })
    return events
  }

  get sawFinish(): boolean {
    return this.finished
  }

  derivedFinish(): GenerationEvent {
    this.finished = true
    return { kind: 'finish', reason: 'stop', derived: true }
  }
}

function wholeCompletion(reply: unknown): WholeReply | undefined {
  const choice = firstChoice(reply)
  if (choice === undefined) return undefined
  return {
    content: typeof choice.text === 'string' ? choice.text : '',
    reasoning: undefined,
    toolCalls: [],
    finishReason: finishOf(choice),
    usage: upstreamUsage((reply as { usage?: unknown }).usage),
  }
}
