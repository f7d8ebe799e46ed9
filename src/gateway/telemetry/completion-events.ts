import type { RequestEndedEvent, TelemetryEvent } from '../../shared/api/telemetry'
import type { ModelPrice } from '../config/model-catalog'
import type { CompletionRecord } from '../pipeline/completion-context'

/** The events a finished generation produces: how it ended, and its cache hit if any. */
export function completionEvents(
  record: CompletionRecord,
  durationMs: number,
  price: ModelPrice | undefined,
): TelemetryEvent[] {
  const base = { id: record.id, org: record.org, session: record.session, model: record.model, at: new Date().toISOString() }
  const cached = cachedTokensOf(record.usage.prompt_tokens_details)
  const ended: RequestEndedEvent = {
    ...base,
    type: `request.${record.outcome}`,
    deployment: record.deployment,
    upstream: record.upstream ?? null,
    finish_reason: record.finishReason ?? null,
    finish_reason_derived: record.finishReasonDerived,
    error_code: record.errorCode ?? null,
    usage: record.usage,
    usage_source: record.usageSource,
    duration_ms: round(durationMs),
    cost_usd: price === undefined ? null : costOf(price, record.usage.prompt_tokens, cached, record.usage.completion_tokens),
  }
  const events: TelemetryEvent[] = [ended]
  if (cached > 0) events.push({ ...base, type: 'cache', cached_tokens: cached, prompt_tokens: record.usage.prompt_tokens })
  return events
}

function cachedTokensOf(details: Record<string, unknown> | undefined): number {
  const cached = details?.cached_tokens
  return typeof cached === 'number' && cached > 0 ? cached : 0
}

/** Prices are per million tokens; cached prompt tokens use their own price when there is one. */
export function costOf(price: ModelPrice, promptTokens: number, cachedTokens: number, completionTokens: number): number {
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion
  const usd =
    ((promptTokens - cachedTokens) * price.inputPerMillion + cachedTokens * cachedPrice + completionTokens * price.outputPerMillion) /
    1_000_000
  return Math.round(usd * 1e9) / 1e9
}

export const round = (ms: number) => Math.round(ms * 1000) / 1000
