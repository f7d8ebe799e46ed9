// How a session's prefix comparison reads in the UI. Pure.
import type { SessionPrefixEntry } from '../../../shared/api/session-prefixes'

/** "1,234 of 1,300 (95 %)": the shared prefix against the previous prompt's length. */
export function sharedText(entry: SessionPrefixEntry, previousTokens: number | null): string {
  if (entry.shared_prefix_tokens === null) return entry.previous_id === null ? 'first prompt' : '—'
  const shared = entry.shared_prefix_tokens.toLocaleString('en-US')
  if (previousTokens === null || previousTokens === 0) return shared
  return `${shared} of ${previousTokens.toLocaleString('en-US')} (${Math.floor((100 * entry.shared_prefix_tokens) / previousTokens)} %)`
}

/**
 * What the server's cache report says against the shared prefix: a cache that served fewer tokens
 * than the prompts share missed some it could have hit.
 */
export function cacheVerdict(entry: SessionPrefixEntry): 'hit' | 'partial' | 'miss' | null {
  if (entry.cached_tokens === null || entry.shared_prefix_tokens === null || entry.shared_prefix_tokens === 0) return null
  if (entry.cached_tokens === 0) return 'miss'
  return entry.cached_tokens >= entry.shared_prefix_tokens * 0.9 ? 'hit' : 'partial'
}
