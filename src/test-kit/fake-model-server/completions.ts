import { sendJson, Reply, type Exchange } from './reply'

/**
 * POST /v1/completions, for a fake that has it (`behavior.completions`): OpenAI's `text_completion`
 * objects, whatever the family (vLLM, llama.cpp, LM Studio and Ollama all answer in OpenAI's
 * shape here). The reply is `deltas`, one chunk each, paced as chat's; then a chunk with the finish
 * reason, the usage chunk when asked (`choices: []`), and `[DONE]`. Other modes answer chat only.
 */
export async function respondCompletions(exchange: Exchange): Promise<void> {
  const { behavior, record } = exchange
  const body = record.body ?? {}
  const reply = new Reply(exchange, body)
  const { id: chatId, created, model } = reply.meta
  const id = chatId.replace(/^chatcmpl-/, 'cmpl-')
  const choice = (text: string, finishReason: string | null) => ({ text, index: 0, logprobs: null, finish_reason: finishReason })
  const object = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id, object: 'text_completion', created, model, choices, ...extra })
  if (body.stream !== true) {
    sendJson(exchange, 200, object([choice(behavior.deltas.join(''), behavior.finishReason)], behavior.usage !== null ? { usage: behavior.usage } : {}))
    return
  }
  reply.startStream()
  if (!(await reply.writePaced(behavior.deltas.map((text) => JSON.stringify(object([choice(text, null)])))))) return
  if (!(await reply.write(JSON.stringify(object([choice('', behavior.finishReason)]))))) return
  if (reply.includeUsage && behavior.usage !== null && !(await reply.write(JSON.stringify(object([], { usage: behavior.usage }))))) return
  reply.done()
}
