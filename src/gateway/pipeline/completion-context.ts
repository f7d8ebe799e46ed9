import type { FinishReason, Usage } from '../../shared/api/chat-response'
import type { DialectRules } from '../../shared/api/dialect'
import type { Principal } from '../auth/key-store'
import type { GenerationRequest } from '../backends/generation-request'
import type { UpstreamObserver } from '../backends/model-backend'
import type { DeployedModel } from '../config/model-catalog'
import type { WireFormat } from '../endpoints/endpoint'
import type { GenerationResult, UsageSource } from '../generation/run-generation'
import type { TokenPlan } from './plan-tokens'
import { affinityKeyOf, type Session } from './resolve-session'

/** Everything the stages decided about one generation, for the responders to use. */
export interface CompletionContext {
  /** The reply's ID (the endpoint's kind: `chatcmpl-…`, `cmpl-…`), which also stops it. */
  id: string
  /** When the request was accepted, in Unix seconds: `created` on every object. */
  created: number
  principal: Principal
  request: GenerationRequest
  model: DeployedModel
  session: Session
  plan: TokenPlan
  /** Told what goes to and comes from a model server (traffic capture), when capture is on. */
  observer?: UpstreamObserver | undefined
  /** The caller's dialect's rules: its key's dialect, else the gateway's. */
  dialect: DialectRules
  /** The endpoint's wire format: how the reply, and its errors, are written. */
  wire: WireFormat
}

/**
 * What happened to one generation, for observers (the telemetry stream builds on it). Emitted once
 * per accepted generation, however it ended (a backend that refused to start included).
 */
export interface CompletionRecord {
  id: string
  org: string
  session: string
  model: string
  deployment: string
  upstream: string | undefined
  stream: boolean
  outcome: 'finished' | 'stopped' | 'client_disconnected' | 'shutdown' | 'failed'
  finishReason: FinishReason | undefined
  /** The model server sent no finish reason: its stream ended at [DONE], and the gateway derived one. */
  finishReasonDerived: boolean
  errorCode: string | undefined
  usage: Usage
  /** Whether `usage` is the model server's own count or the gateway's estimate. */
  usageSource: UsageSource
}

export type CompletionObserver = (record: CompletionRecord) => void

/**
 * Told how a generation ended; resolves once the ending is recorded. The record is built from
 * this only when someone consumes it: it reads the exact prompt count, which planning otherwise
 * leaves uncounted when it can. Without the model server's usage, the prompt is counted first
 * (in slices, when long), so that what reads the estimate afterwards reads a number.
 */
export type GenerationEndObserver = (result: GenerationResult, upstream: string | undefined) => Promise<void>

/** The reply's usage: the model server's own when it reported one, else the gateway's count. */
export function usageOf(context: CompletionContext, result: GenerationResult): { usage: Usage; source: UsageSource } {
  if (result.reportedUsage !== undefined) return { usage: result.reportedUsage, source: 'upstream' }
  const prompt = context.plan.promptTokens
  return {
    usage: { prompt_tokens: prompt, completion_tokens: result.completionTokens, total_tokens: prompt + result.completionTokens },
    source: 'estimate',
  }
}

export function completionRecord(
  context: CompletionContext,
  result: GenerationResult,
  upstream: string | undefined,
): CompletionRecord {
  const { outcome } = result
  const { usage, source } = usageOf(context, result)
  return {
    id: context.id,
    org: context.principal.org,
    session: context.session.name,
    model: context.model.id,
    deployment: context.model.backend.deployment,
    upstream,
    stream: context.request.stream,
    outcome:
      outcome.kind === 'finished' ? 'finished' : outcome.kind === 'failed' ? 'failed' : outcome.reason === 'stopped' ? 'stopped' : outcome.reason,
    finishReason: outcome.kind === 'finished' ? outcome.reason : undefined,
    finishReasonDerived: outcome.kind === 'finished' && outcome.derived,
    errorCode: outcome.kind === 'failed' ? (outcome.error.code ?? undefined) : undefined,
    usage,
    usageSource: source,
  }
}

/** What a backend is asked for: the request as planned, and where its session's prefix lives. */
export function planInput(context: CompletionContext) {
  return {
    request: context.request,
    maxTokens: context.plan.maxTokens,
    affinityKey: affinityKeyOf(context.principal.org, context.session),
    observer: context.observer,
  }
}
