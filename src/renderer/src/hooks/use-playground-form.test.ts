import { describe, expect, it } from 'vitest'
import { defaultPlaygroundForm } from '../logic/playground/playground-request'
import { playgroundFormReducer as reduce } from './use-playground-form'

describe('playgroundFormReducer', () => {
  const start = defaultPlaygroundForm('m')

  it('patches fields without touching the others or the form it was given', () => {
    const next = reduce(start, { type: 'set', patch: { maxTokens: '64', stream: false } })
    expect(next).toEqual({ ...start, maxTokens: '64', stream: false })
    expect(start).toEqual(defaultPlaygroundForm('m'))
  })

  it('patches one message by index', () => {
    const two = { ...start, messages: [{ role: 'user' as const, content: 'a' }, { role: 'assistant' as const, content: 'b' }] }
    expect(reduce(two, { type: 'set-message', index: 1, patch: { content: 'B' } }).messages).toEqual([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'B' },
    ])
  })

  it("adds the other side's turn: assistant after user, user after assistant or nothing", () => {
    const afterUser = reduce(start, { type: 'add-message' })
    expect(afterUser.messages.at(-1)).toEqual({ role: 'assistant', content: '' })
    expect(reduce(afterUser, { type: 'add-message' }).messages.at(-1)).toEqual({ role: 'user', content: '' })
    expect(reduce({ ...start, messages: [] }, { type: 'add-message' }).messages).toEqual([{ role: 'user', content: '' }])
  })

  it('removes one message by index and replaces the whole form', () => {
    const three = reduce(reduce(start, { type: 'add-message' }), { type: 'add-message' })
    expect(reduce(three, { type: 'remove-message', index: 1 }).messages.map((m) => m.role)).toEqual(['user', 'user'])
    const other = defaultPlaygroundForm('other')
    expect(reduce(three, { type: 'replace', form: other })).toBe(other)
  })
})
