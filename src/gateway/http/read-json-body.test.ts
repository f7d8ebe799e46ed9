import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors'
import { MAX_JSON_DEPTH } from './json-depth'
import { ParsedParts } from './parsed-parts'
import { readJsonBody } from './read-json-body'

/** A request whose body arrives in chunks of 16 KB, as a socket delivers a large one. */
function request(body: string | Buffer): IncomingMessage {
  const bytes = Buffer.from(body)
  const chunks = Array.from({ length: Math.ceil(bytes.length / 16_384) }, (_, i) => bytes.subarray(i * 16_384, (i + 1) * 16_384))
  return Object.assign(Readable.from(chunks), { headers: {} }) as unknown as IncomingMessage
}

const turn = (i: number) => [
  { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: `{"n":${i}}` } }] },
  { role: 'tool', tool_call_id: `call_${i}`, content: `result ${i} `.repeat(40) },
]
const conversation = (turns: number) => [{ role: 'system', content: 'Instructions. '.repeat(3_000) }, ...Array.from({ length: turns }, (_, i) => turn(i)).flat()]

describe('readJsonBody', () => {
  it('reads an agent\'s next turn from where its last ended, the text as sent and each span\'s text from its bytes', async () => {
    const known = { parts: new ParsedParts(), scope: 'org' }
    for (let turns = 1; turns <= 4; turns++) {
      const text = JSON.stringify({ model: 'm', messages: conversation(turns), tools: [], max_tokens: 16 })
      const body = await readJsonBody(request(text), 8 << 20, known)
      expect(body.value).toEqual(JSON.parse(text))
      expect(body.ascii).toBe(true)
      expect(body.text).toBe(text)
      for (const [name, span] of body.members ?? []) {
        expect(JSON.parse(text.slice(span.start, span.end))).toEqual((JSON.parse(text) as Record<string, unknown>)[name])
        expect(body.spanText?.(span.start, span.end) ?? body.text.slice(span.start, span.end)).toBe(text.slice(span.start, span.end))
      }
      // From the second turn on, the body was parsed without decoding it: its text is made on demand.
      expect(typeof body.spanText).toBe(turns === 1 ? 'undefined' : 'function')
    }
  })

  it('refuses a next turn that is not JSON, or nests too deep, as it refuses any body', async () => {
    const known = { parts: new ParsedParts(), scope: 'org' }
    const first = JSON.stringify({ model: 'm', messages: conversation(1) })
    await readJsonBody(request(first), 8 << 20, known)
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1)
    const next = (extra: string) => first.slice(0, -2) + ',' + extra + ']}'
    const refusal = async (text: string) => {
      const error: unknown = await readJsonBody(request(text), 8 << 20, known).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(GatewayError)
      return (error as GatewayError).message
    }
    expect(await refusal(next(deep))).toMatch(/nests JSON more than/)
    const broken = next('{"role":"user",}')
    let expected = ''
    try {
      JSON.parse(broken)
    } catch (error) {
      expected = (error as Error).message
    }
    expect(await refusal(broken)).toBe(`The request body is not valid JSON: ${expected}`)
  })
})
