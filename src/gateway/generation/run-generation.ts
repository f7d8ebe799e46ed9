import type { FinishReason, Usage } from '../../shared/api/chat-response'
import type { GenerationInput, ModelBackend } from '../backends/model-backend'
import { GatewayError, internalError } from '../errors'
import type { LiveGeneration, StopReason } from './generation-registry'

/** Where a reply goes as it is generated: an SSE stream, or an accumulator for the JSON object. */
export interface ReplySink {
  content(text: string): Promise<void> | void
  toolCallStart(index: number, id: string, name: string): Promise<void> | void
  toolCallArguments(index: number, text: string): Promise<void> | void
}

export type GenerationOutcome =
  | { kind: 'finished'; reason: FinishReason }
  | { kind: 'stopped'; reason: StopReason }
  | { kind: 'failed'; error: GatewayError }

export interface GenerationResult {
  outcome: GenerationOutcome
  /** Tokens generated, including those before a stop: they are counted too. */
  completionTokens: number
  /** The backend's own usage, when it reported one (model servers do). */
  reportedUsage: Usage | undefined
}

/** Drive one backend generation into a sink, and say how it ended. */
export async function runGeneration(
  backend: ModelBackend,
  input: Omit<GenerationInput, 'signal'>,
  live: LiveGeneration,
  sink: ReplySink,
): Promise<GenerationResult> {
  let completionTokens = 0
  let reportedUsage: Usage | undefined
  let finish: FinishReason | undefined
  const stopped = (): GenerationResult | undefined => {
    const reason = live.stopReason()
    return reason === undefined ? undefined : { outcome: { kind: 'stopped', reason }, completionTokens, reportedUsage }
  }
  try {
    for await (const event of backend.generate({ ...input, signal: live.signal })) {
      if (live.signal.aborted) break
      switch (event.kind) {
        case 'content':
          completionTokens += event.tokens
          await sink.content(event.text)
          break
        case 'tool_call_start':
          completionTokens += event.tokens
          await sink.toolCallStart(event.index, event.id, event.name)
          break
        case 'tool_call_arguments':
          completionTokens += event.tokens
          await sink.toolCallArguments(event.index, event.text)
          break
        case 'usage':
          reportedUsage = event.usage
          break
        case 'finish':
          finish = event.reason
          break
      }
    }
  } catch (error) {
    const asStopped = stopped()
    if (asStopped) return asStopped
    return {
      outcome: { kind: 'failed', error: error instanceof GatewayError ? error : logged(error) },
      completionTokens,
      reportedUsage,
    }
  }
  const asStopped = stopped()
  if (asStopped) return asStopped
  if (finish === undefined) {
    return { outcome: { kind: 'failed', error: logged(new Error('backend ended without a finish reason')) }, completionTokens, reportedUsage }
  }
  return { outcome: { kind: 'finished', reason: finish }, completionTokens, reportedUsage }
}

function logged(error: unknown): GatewayError {
  process.stderr.write(`mortar: generation failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  return internalError()
}
