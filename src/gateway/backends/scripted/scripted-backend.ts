import { randomBytes } from 'node:crypto'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { GenerationEvent, GenerationInput, ModelBackend } from '../model-backend'
import { emptyArgumentsFor } from './empty-arguments'
import { Pacer } from './pacer'
import { scriptReply } from './script'

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

  async *generate({ request, maxTokens, signal }: GenerationInput): AsyncGenerator<GenerationEvent> {
    const { tokenizer } = this.options
    const pacer = new Pacer(this.options.tokensPerSecond, signal)
    let used = 0
    const fits = (tokens: number) => used + tokens <= maxTokens

    const script = scriptReply(request)
    if (script.kind === 'text') {
      for (const piece of tokenizer.decodePieces(tokenizer.encode(script.text))) {
        if (!fits(piece.tokens)) return yield { kind: 'finish', reason: 'length' }
        if (!(await pacer.admit(piece.tokens))) return
        used += piece.tokens
        yield { kind: 'content', text: piece.text, tokens: piece.tokens }
      }
      return yield { kind: 'finish', reason: 'stop' }
    }

    for (const [index, tool] of script.tools.entries()) {
      const name = tool.function.name
      // Counted as the Qwen template writes a call: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`.
      const opening = tokenizer.count(`<tool_call>\n{"name": "${name}", "arguments": `)
      const closing = tokenizer.count('}\n</tool_call>')
      if (!fits(opening)) return yield { kind: 'finish', reason: 'length' }
      if (!(await pacer.admit(opening))) return
      used += opening
      yield { kind: 'tool_call_start', index, id: newToolCallId(), name, tokens: opening }

      const pieces = [...tokenizer.decodePieces(tokenizer.encode(JSON.stringify(emptyArgumentsFor(tool))))]
      for (const [i, piece] of pieces.entries()) {
        const cost = piece.tokens + (i === pieces.length - 1 ? closing : 0)
        if (!fits(cost)) return yield { kind: 'finish', reason: 'length' }
        if (!(await pacer.admit(piece.tokens))) return
        used += cost
        yield { kind: 'tool_call_arguments', index, text: piece.text, tokens: cost }
      }
    }
    return yield { kind: 'finish', reason: 'tool_calls' }
  }
}

export function newToolCallId(): string {
  return 'call_' + randomBytes(12).toString('hex')
}
