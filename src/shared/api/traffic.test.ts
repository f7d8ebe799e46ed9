import { describe, expect, it } from 'vitest'
import { exchangeListQuerySchema, exportQuerySchema, trafficQueryString, TrafficPath } from './traffic'

describe('traffic API query parameters', () => {
  it('parses comma-separated filters and defaults the page size', () => {
    const query = exchangeListQuerySchema.parse({ status: '4xx,5xx', outcome: 'refused', q: 'hello' })
    expect(query).toEqual({ status: ['4xx', '5xx'], outcome: ['refused'], q: 'hello', limit: 50 })
  })

  it('refuses an unknown status class, outcome or time', () => {
    expect(exchangeListQuerySchema.safeParse({ status: '6xx' }).success).toBe(false)
    expect(exchangeListQuerySchema.safeParse({ outcome: 'exploded' }).success).toBe(false)
    expect(exchangeListQuerySchema.safeParse({ since: 'yesterday' }).success).toBe(false)
    expect(exchangeListQuerySchema.safeParse({ limit: '0' }).success).toBe(false)
  })

  it('round-trips what the UI writes', () => {
    const text = trafficQueryString({ format: 'har', ids: 'exch_a,exch_b', model: undefined, q: '' })
    expect(text).toBe('?format=har&ids=exch_a%2Cexch_b')
    const parsed = exportQuerySchema.parse(Object.fromEntries(new URLSearchParams(text)))
    expect(parsed).toEqual({ format: 'har', ids: ['exch_a', 'exch_b'] })
  })

  it('escapes an exchange ID in its path', () => {
    expect(TrafficPath.exchange('a/b')).toBe('/v1/traffic/exchanges/a%2Fb')
  })
})
