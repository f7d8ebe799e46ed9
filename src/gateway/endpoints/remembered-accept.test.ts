import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DIALECT_RULES } from '../../shared/api/dialect'
import { firstIssue, invalidFieldMessage } from '../../shared/api/first-issue'
import { messagesRequestSchema, parseMessagesRequest } from '../../shared/api/messages-request'
import { messagesToChat } from '../../shared/api/messages-to-chat'
import { normalizeResponsesRequest, parseResponsesRequest, responsesRequestSchema } from '../../shared/api/responses-request'
import { responsesToChat } from '../../shared/api/responses-to-chat'
import { historyArbitraries } from '../../shared/api/test-support/history-arbitraries'
import { ResponsesForm } from '../backends/upstream/forms/responses-form'
import { GatewayError } from '../errors'
import { outgoingText } from '../http/json-splice'
import { isRememberedElement, ParsedParts, SHORTEST_REMEMBERED_CHARS, SHORTEST_SPLIT_BODY_CHARS } from '../http/parsed-parts'
import type { Endpoint } from './endpoint'
import { messagesEndpoint } from './messages/messages-endpoint'
import { responsesEndpoint } from './responses/responses-endpoint'

// An agent's history is sent turn after turn; the elements parsed before come back as the same
// frozen objects, and the accept stage remembers what it made of them. What it gives must be
// exactly what validating and translating the whole body gives, whatever the history.

const { longText, messagesMessage, messagesTool, responsesItem, responsesTool } = historyArbitraries(SHORTEST_REMEMBERED_CHARS)

/** A conversation's turns: each step sends one more element, sometimes changes an old one, and names one of two organizations. */
// Up to 12 turns: past 8 elements, the JSON written of a history for the model server is kept
// whole for the turn that extends it, and `accepted` compares those bodies too.
const TURNS = 12
const steps = <T>(element: fc.Arbitrary<T>) =>
  fc.record({
    history: fc.array(element, { minLength: 1, maxLength: TURNS }),
    changes: fc.array(fc.record({ at: fc.nat(), to: element }), { maxLength: 3 }),
    scopes: fc.array(fc.constantFrom('org-a', 'org-b'), { minLength: TURNS, maxLength: TURNS }),
  })

/** What accept gives, in a form to compare: the request and the bodies its forms write, or the refusal. */
function accepted(endpoint: Endpoint, value: unknown): unknown {
  try {
    const { model, request } = endpoint.accept(value, { dialect: DIALECT_RULES.mortar })
    const { forms, ...rest } = request
    const bodies = forms.map((form) => {
      try {
        return outgoingText(form.body(request, { model: 'm', maxTokens: 16, askForUsage: false }))
      } catch (error) {
        return (error as Error).message
      }
    })
    const responses = forms.find((form): form is ResponsesForm => form instanceof ResponsesForm)
    return { model, ...rest, responses: responses?.responses, bodies }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    return { refused: error.message, param: error.param }
  }
}

function refusal(error: Parameters<typeof firstIssue>[0]) {
  const first = firstIssue(error)
  return { ok: false, issue: { param: first.param, message: invalidFieldMessage(first) } }
}

/**
 * Holds one turn to what the whole path gives: the parse to the whole schema's (its output, or
 * its first issue), the translation to the translation of that output (nothing in it frozen, so
 * nothing remembered), and the accept stage to the same on a copy of the body that is not frozen.
 */
const checkMessages = (value: unknown, text: string) => {
  const whole = messagesRequestSchema.safeParse(JSON.parse(text))
  const parsed = parseMessagesRequest(value, isRememberedElement)
  expect(parsed).toStrictEqual(whole.success ? { ok: true, request: whole.data } : refusal(whole.error))
  if (parsed.ok && whole.success) expect(messagesToChat(parsed.request)).toStrictEqual(messagesToChat(whole.data))
  expect(accepted(messagesEndpoint, value)).toStrictEqual(accepted(messagesEndpoint, JSON.parse(text)))
}

const checkResponses = (value: unknown, text: string) => {
  const whole = responsesRequestSchema.safeParse(JSON.parse(text))
  const parsed = parseResponsesRequest(value, isRememberedElement)
  expect(parsed).toStrictEqual(whole.success ? { ok: true, request: normalizeResponsesRequest(whole.data) } : refusal(whole.error))
  if (parsed.ok && whole.success) expect(responsesToChat(parsed.request)).toStrictEqual(responsesToChat(normalizeResponsesRequest(whole.data)))
  expect(accepted(responsesEndpoint, value)).toStrictEqual(accepted(responsesEndpoint, JSON.parse(text)))
}

const SYSTEM = 'You are an agent. '.repeat(SHORTEST_SPLIT_BODY_CHARS / 16)

function runConversation<T>(
  parts: ParsedParts,
  check: (value: unknown, text: string) => void,
  body: (history: T[]) => object,
  { history, changes, scopes }: { history: T[]; changes: { at: number; to: T }[]; scopes: string[] },
): number {
  let remembered = 0
  const sent: T[] = []
  for (const [turn, element] of history.entries()) {
    sent.push(element)
    const change = changes[turn]
    if (change !== undefined) sent[change.at % sent.length] = change.to
    const text = JSON.stringify(body(sent))
    // Twice per turn, as a client retrying would: the second time everything long is remembered.
    for (let round = 0; round < 2; round++) {
      const value = parts.parse(text, scopes[turn]!).value as Record<string, unknown[]>
      remembered += Object.values(value).filter(Array.isArray).flat().filter(isRememberedElement).length
      check(value, text)
    }
  }
  return remembered
}

describe('the accept stage with remembered history elements', () => {
  it('gives what the whole Messages schema and translation give, for any history, changed elements and organizations', () => {
    const parts = new ParsedParts()
    let remembered = 0
    fc.assert(
      fc.property(steps(messagesMessage), fc.array(messagesTool, { maxLength: 2 }), fc.constantFrom(undefined, { type: 'any' }, { type: 'tool', name: 'read' }), (conversation, tools, toolChoice) => {
        remembered += runConversation(parts, checkMessages, (messages) => ({ model: 'm', max_tokens: 16, system: SYSTEM, messages, tools, tool_choice: toolChoice }), conversation)
      }),
      { numRuns: 150 },
    )
    // The property is about remembered elements: make sure there were many.
    expect(remembered).toBeGreaterThan(200)
  })

  it('gives what the whole Responses schema and translation give, for any history, changed elements and organizations', () => {
    const parts = new ParsedParts()
    let remembered = 0
    fc.assert(
      fc.property(steps(responsesItem), fc.array(responsesTool, { maxLength: 2 }), fc.constantFrom(undefined, 'required', { type: 'function', name: 'read' }), (conversation, tools, toolChoice) => {
        remembered += runConversation(parts, checkResponses, (input) => ({ model: 'm', instructions: SYSTEM, input, tools, tool_choice: toolChoice }), conversation)
      }),
      { numRuns: 150 },
    )
    expect(remembered).toBeGreaterThan(200)
  })

  it('keeps each API’s own result for the same remembered element', () => {
    // The same text is a valid Messages message and a valid Responses item: one frozen object.
    const parts = new ParsedParts()
    const message = { role: 'user', content: longText('shared') }
    const asMessages = JSON.stringify({ model: 'm', max_tokens: 16, system: SYSTEM, messages: [message] })
    const asResponses = JSON.stringify({ model: 'm', instructions: SYSTEM, input: [message] })
    for (let round = 0; round < 2; round++) {
      const a = parts.parse(asMessages, 'o').value as { messages: unknown[] }
      const b = parts.parse(asResponses, 'o').value as { input: unknown[] }
      if (round === 1) expect(a.messages[0]).toBe(b.input[0])
      checkMessages(a, asMessages)
      checkResponses(b, asResponses)
    }
  })
})
