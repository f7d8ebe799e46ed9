import { describe, expect, it } from 'vitest'
import { StopController } from './stop-signal'

describe('StopController', () => {
  it('calls each listener once, in order, with the first reason kept', () => {
    const controller = new StopController<string>()
    const calls: string[] = []
    controller.onAbort(() => calls.push('a'))
    controller.onAbort(() => calls.push('b'))
    expect(controller.aborted).toBe(false)
    expect(controller.reason).toBeUndefined()
    controller.abort('stopped')
    controller.abort('shutdown')
    expect(calls).toEqual(['a', 'b'])
    expect(controller.aborted).toBe(true)
    expect(controller.reason).toBe('stopped')
  })

  it('does not call a listener that unsubscribed', () => {
    const controller = new StopController<string>()
    const calls: string[] = []
    const unsubscribe = controller.onAbort(() => calls.push('gone'))
    controller.onAbort(() => calls.push('kept'))
    unsubscribe()
    controller.abort('stopped')
    expect(calls).toEqual(['kept'])
  })

  it('calls a listener added after the stop at once', () => {
    const controller = new StopController<string>()
    controller.abort('client_disconnected')
    let called = 0
    controller.onAbort(() => called++)
    expect(called).toBe(1)
  })
})
