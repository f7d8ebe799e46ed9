import { describe, expect, it } from 'vitest'
import type { SessionPrefixEntry } from '../../../shared/api/session-prefixes'
import { cacheVerdict, sharedText } from './prefix-share'

const entry = (patch: Partial<SessionPrefixEntry>): SessionPrefixEntry => ({
  id: 'e',
  started_at: '2026-12-01T08:00:00Z',
  model: 'm',
  tokenizer: 'qwen2.5',
  exact: true,
  prompt_tokens: 100,
  previous_id: 'p',
  shared_prefix_tokens: 90,
  first_difference: null,
  cached_tokens: null,
  note: null,
  ...patch,
})

describe('sharedText', () => {
  it('says the first prompt has nothing to share, and others against the previous length', () => {
    expect(sharedText(entry({ previous_id: null, shared_prefix_tokens: null }), null)).toBe('first prompt')
    expect(sharedText(entry({ shared_prefix_tokens: 1234 }), 1300)).toBe('1,234 of 1,300 (94 %)')
  })
})

describe('cacheVerdict', () => {
  it('compares what the server cached with what could have been', () => {
    expect(cacheVerdict(entry({ cached_tokens: null }))).toBeNull()
    expect(cacheVerdict(entry({ cached_tokens: 0 }))).toBe('miss')
    expect(cacheVerdict(entry({ cached_tokens: 85 }))).toBe('hit')
    expect(cacheVerdict(entry({ cached_tokens: 40 }))).toBe('partial')
  })
})
