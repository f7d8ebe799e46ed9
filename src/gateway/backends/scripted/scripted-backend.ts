import { randomHex } from '../../random-id'
import { countInSlices } from '../../tokens/count-in-slices'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { EmbeddingsJob, EmbeddingsResult, GenerationEvent, GenerationInput, ModelBackend, StartedGeneration } from '../model-backend'
import { pushEach } from '../push-events'
import { emptyArgumentsFor } from './empty-arguments'
import { Pacer } from './pacer'
import { scriptReply } from './script'
import { scriptedEmbeddings } from './scripted-embeddings'

export interface ScriptedBackendOptions {
  deployment: string
  tokenizer: Tokenizer
  /** 0 streams as fast as possible. */
  tokensPerSecond: number
}

/**
 * The built-in model: deterministic, no GPU. It streams the real tokens of its reply, one per
 * event, paced, and cuts the reply at max_tokens with `length`.
 */
export class ScriptedBackend implements ModelBackend {
  readonly deployment: string

  constructor(private readonly options: ScriptedBackendOptions) {
    this.deployment = options.deployment
  }

  start(input: GenerationInput): Promise<StartedGeneration> {
    return Promise.resolve({ keepAlive: false, run: (sink) => pushEach(this.generate(input), sink) })
  }

  embed(job: EmbeddingsJob): Promise<EmbeddingsResult> {
    return scriptedEmbeddings(this.options.tokenizer, job)
  }

  private async *generate({ request, maxTokens, signal }: GenerationInput): AsyncGenerator<GenerationEvent> {
    const { tokenizer } = this.options
    const pacer = new Pacer(this.options.tokensPerSecond, signal)
    let used = 0
    const limit = maxTokens ?? Number.POSITIVE_INFINITY
    const fits = (tokens: number) => used + tokens <= limit

    const script = scriptReply(request.prompt)
    if (script.kind === 'text') {
      // The reply echoes the prompt, which may be megabytes: it is tokenized in slices that yield
      // to the event loop, and only as far as max_tokens reaches (plus one token, to tell a
      // reply cut at max_tokens from one that ended there).
      const ids: number[] = []
      await countInSlices([tokenizer.startCount(script.text, ids)], 0, limit)
      for (const piece of tokenizer.decodePieces(ids)) {
        if (!fits(piece.tokens)) return yield { kind: 'finish', reason: 'length' }
        if (!(await pacer.admit(piece.tokens))) return
        used += piece.tokens
        yield { kind: 'content', text: piece.text, tokens: piece.tokens }
      }
      return yield { kind: 'finish', reason: 'stop' }
    }

    for (const [index, tool] of script.tools.entries()) {
      const name = tool.function.name
      const argumentsJson = JSON.stringify(emptyArgumentsFor(tool))
      const argumentTokens = tokenizer.encode(argumentsJson)
      // A call counts as the Qwen template writes it, `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`,
      // counted whole; the first piece carries the framing, each argument piece its own tokens.
      const whole = tokenizer.count(`<tool_call>\n{"name": "${name}", "arguments": ${argumentsJson}}\n</tool_call>`)
      const framing = Math.max(whole - argumentTokens.length, 0)
      if (!fits(framing)) return yield { kind: 'finish', reason: 'length' }
      if (!(await pacer.admit(framing))) return
      used += framing
      yield {
        kind: 'tool_call',
        delta: { index, id: newToolCallId(), type: 'function', function: { name, arguments: '' } },
        tokens: framing,
      }
      for (const piece of tokenizer.decodePieces(argumentTokens)) {
        if (!fits(piece.tokens)) return yield { kind: 'finish', reason: 'length' }
        if (!(await pacer.admit(piece.tokens))) return
        used += piece.tokens
        yield { kind: 'tool_call', delta: { index, function: { arguments: piece.text } }, tokens: piece.tokens }
      }
    }
    return yield { kind: 'finish', reason: 'tool_calls' }
  }
}

export function newToolCallId(): string {
  return 'call_' + randomHex(12)
}
