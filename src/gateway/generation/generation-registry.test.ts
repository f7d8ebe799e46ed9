import { describe, expect, it } from 'vitest'
import { GenerationRegistry } from './generation-registry'

describe('GenerationRegistry', () => {
  it('stops only within the org, once, and reports why', () => {
    const registry = new GenerationRegistry()
    const live = registry.register('g1', 'acme')
    expect(registry.stop('g1', 'other')).toBe(false)
    expect(live.signal.aborted).toBe(false)
    expect(registry.stop('g1', 'acme')).toBe(true)
    expect(live.stopReason()).toBe('stopped')
    expect(registry.stop('g1', 'acme')).toBe(false)
    expect(registry.stop('nope', 'acme')).toBe(false)
  })

  it('resolves whenIdle after the last release, and stopAll aborts everything', async () => {
    const registry = new GenerationRegistry()
    const a = registry.register('a', 'o')
    const b = registry.register('b', 'o')
    expect(registry.stopAll('shutdown')).toBe(2)
    expect(b.stopReason()).toBe('shutdown')
    let idle = false
    const waiting = registry.whenIdle().then(() => (idle = true))
    a.release()
    await Promise.resolve()
    expect(idle).toBe(false)
    b.release()
    await waiting
    expect(registry.size).toBe(0)
  })

  it('tells onRegister listeners of each generation as it is registered, until they unsubscribe', () => {
    const registry = new GenerationRegistry()
    const seen: string[] = []
    const unsubscribe = registry.onRegister((id, org) => seen.push(`${org}/${id}:${registry.size}`))
    // A listener that unsubscribes itself while being told does not keep the next one from hearing.
    const once = registry.onRegister((id) => {
      once()
      seen.push(`once:${id}`)
    })
    const later: string[] = []
    registry.onRegister((id) => later.push(id))
    registry.register('g1', 'acme')
    unsubscribe()
    registry.register('g2', 'acme')
    // Told once the generation is live (it already counts in size).
    expect(seen).toEqual(['acme/g1:1', 'once:g1'])
    expect(later).toEqual(['g1', 'g2'])
  })

  it('tells onRelease listeners once per generation, when its release removes it, and not for a stale release', () => {
    const registry = new GenerationRegistry()
    const released: string[] = []
    const unsubscribe = registry.onRelease((id) => released.push(`${id}:${registry.size}`))
    const first = registry.register('g1', 'acme')
    // The same ID registered again (a new generation): the old handle's release is stale.
    const second = registry.register('g1', 'acme')
    first.release()
    expect(released).toEqual([])
    second.release()
    second.release()
    expect(released).toEqual(['g1:0'])
    unsubscribe()
    registry.register('g2', 'acme').release()
    expect(released).toEqual(['g1:0'])
  })
})
