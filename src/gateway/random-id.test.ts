import { describe, expect, it } from 'vitest'
import { randomHex } from './random-id'

describe('randomHex', () => {
  it('gives distinct hex IDs of the asked length across pool refills', () => {
    const ids = new Set<string>()
    for (let i = 0; i < 2_000; i++) {
      const id = randomHex(12)
      expect(id).toMatch(/^[0-9a-f]{24}$/)
      ids.add(id)
    }
    expect(ids.size).toBe(2_000)
  })
})
