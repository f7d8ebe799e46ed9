import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_BODY_LIMIT_BYTES } from '../gateway/http/read-json-body'
import { readEvents, dataPayloads, startTestGateway, type TestGateway } from './harness'
import { expectEnvelope, type EnvelopeError } from '../test-kit/expect-envelope'

/**
 * Request validation end to end: the real `mortar serve` on port 0, raw fetch (and the `openai`
 * SDK once). Every 400 the request contract defines, plus 401, 404, 413 and what IDE clients send.
 */

type Json = Record<string, unknown>

const COMPLETIONS = '/v1/chat/completions'
/** Codes the Errors table reserves for other rows: a validation 400 must not carry them. */
const OTHER_ROWS_CODES = ['context_length_exceeded', 'model_not_found', 'model_not_available']

const user = (content: unknown = 'hi'): Json => ({ role: 'user', content })
const body = (extra: Json = {}): Json => ({ messages: [user()], stream: false, ...extra })
const tool = (name: string): Json => ({ type: 'function', function: { name } })
const manyTools = (n: number): Json[] => Array.from({ length: n }, (_, i) => tool(`t${i}`))
const call = (id: string): Json => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })
const manyCalls = (n: number): Json[] => Array.from({ length: n }, (_, i) => call(`c${i}`))
const manyMessages = (n: number): Json[] => Array.from({ length: n }, () => user('a'))
const withTools = (extra: Json = {}): Json => body({ tools: [tool('get_weather'), tool('get_time')], ...extra })

let gw: TestGateway

beforeAll(async () => {
  gw = await startTestGateway()
})

afterAll(async () => {
  await gw.close()
})

/** A refusal the client must not retry: its status and the gateway's envelope. */
const refusal = (response: Response, status: number): Promise<EnvelopeError> => expectEnvelope(response, { status, retry: false })

/** A validation 400: the envelope, `invalid_request_error`, the field named in `param` and message. */
async function expectValidation400(response: Response, param: string | null): Promise<EnvelopeError> {
  const error = await expectEnvelope(response, { status: 400, retry: false, type: 'invalid_request_error', param, ...(param !== null ? { message: param } : {}) })
  expect(OTHER_ROWS_CODES).not.toContain(error.code)
  return error
}

async function completion(response: Response): Promise<{ content: string | null; finish: string; usage: Json; json: Json }> {
  expect(response.status, await peekError(response)).toBe(200)
  const json = (await response.json()) as Json
  expect(json.object).toBe('chat.completion')
  const choice = (json.choices as Array<{ message: { content: string | null }; finish_reason: string }>)[0]
  if (choice === undefined) throw new Error('no choice')
  return { content: choice.message.content, finish: choice.finish_reason, usage: json.usage as Json, json }
}

/** The error text of a non-200, for assertion messages; leaves a 200's body unread. */
async function peekError(response: Response): Promise<string> {
  return response.status === 200 ? '' : await response.clone().text()
}

const post = (json: unknown, headers?: Record<string, string>) => gw.post(COMPLETIONS, json, headers)

describe('400: the body is not a JSON object', () => {
  it.each<[string, string]>([
    ['invalid JSON', '{"messages": [{"role": "user", "content": "hi"}'],
    ['a JSON fragment with a trailing comma', '{"messages": [],}'],
    ['an empty body', ''],
    ['a body of only whitespace', ' \n\t '],
  ])('refuses %s with param null', async (_name, raw) => {
    await expectValidation400(await post(raw), null)
  })

  it.each<[string, string]>([
    ['a JSON array', JSON.stringify([user()])],
    ['a JSON string', JSON.stringify('hello')],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
  ])('refuses %s, saying a JSON object is needed', async (_name, raw) => {
    const error = await expectValidation400(await post(raw), null)
    expect(error.message).toMatch(/object/i)
  })

  it('answers a refused streaming request (stream left out) with JSON, not an event stream', async () => {
    const error = await expectValidation400(await post({ messages: [] }), 'messages')
    expect(error.message).toContain('messages')
  })
})

describe('400: each rule of the Errors table', () => {
  it.each<[string, unknown, string]>([
    // messages is missing, empty or longer than 512 entries
    ['messages missing', { stream: false }, 'messages'],
    ['messages not an array', { messages: user(), stream: false }, 'messages'],
    ['messages empty', { messages: [], stream: false }, 'messages'],
    ['513 messages', { messages: manyMessages(513), stream: false }, 'messages'],
    // a message lacks a string role or a string-or-array content
    ['a message without role', { messages: [{ content: 'hi' }], stream: false }, 'messages[0].role'],
    ['a role that is a number', { messages: [{ role: 1, content: 'hi' }], stream: false }, 'messages[0].role'],
    ['an unknown role', { messages: [{ role: 'function', content: 'hi' }], stream: false }, 'messages[0].role'],
    ['a user message without content', { messages: [{ role: 'user' }], stream: false }, 'messages[0].content'],
    ['a user message with null content', { messages: [user(null)], stream: false }, 'messages[0].content'],
    ['content that is a number', { messages: [user(5)], stream: false }, 'messages[0].content'],
    ['content that is an object', { messages: [user({ text: 'hi' })], stream: false }, 'messages[0].content'],
    ['an assistant message with null content and no tool_calls', { messages: [user(), { role: 'assistant', content: null }], stream: false }, 'messages[1].content'],
    // a tool call isn't shaped as described
    ['129 tool calls', { messages: [user(), { role: 'assistant', content: null, tool_calls: manyCalls(129) }], stream: false }, 'messages[1].tool_calls'],
    ['a tool call without id', { messages: [user(), { role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }], stream: false }, 'messages[1].tool_calls[0].id'],
    ['a tool call whose arguments are not text', { messages: [user(), { role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'f', arguments: {} } }] }], stream: false }, 'messages[1].tool_calls[0].function.arguments'],
    // a tool message's tool_call_id isn't shaped as described
    ['a tool message without tool_call_id', { messages: [user(), { role: 'assistant', content: null, tool_calls: [call('c1')] }, { role: 'tool', content: 'ok' }], stream: false }, 'messages[2].tool_call_id'],
    ['a tool message whose tool_call_id is a number', { messages: [user(), { role: 'assistant', content: null, tool_calls: [call('c1')] }, { role: 'tool', tool_call_id: 1, content: 'ok' }], stream: false }, 'messages[2].tool_call_id'],
    // tools isn't shaped as described
    ['tools not an array', body({ tools: tool('f') }), 'tools'],
    ['129 tools', body({ tools: manyTools(129) }), 'tools'],
    ['a tool name of 65 characters', body({ tools: [tool('a'.repeat(65))] }), 'tools[0].function.name'],
    ['an empty tool name', body({ tools: [tool('')] }), 'tools[0].function.name'],
    ['a tool name with a dot', body({ tools: [tool('get.weather')] }), 'tools[0].function.name'],
    ['two tools with the same name', body({ tools: [tool('f'), tool('f')] }), 'tools[1].function.name'],
    ['a tool whose type is not function', body({ tools: [{ type: 'retrieval', function: { name: 'f' } }] }), 'tools[0].type'],
    // tool_choice isn't shaped as described
    ['an unknown tool_choice', withTools({ tool_choice: 'any' }), 'tool_choice'],
    ['a tool_choice object without function', withTools({ tool_choice: { type: 'function' } }), 'tool_choice'],
    ['a tool_choice naming a tool not in tools', withTools({ tool_choice: { type: 'function', function: { name: 'get_stock' } } }), 'tool_choice.function.name'],
    ['tool_choice without tools', body({ tool_choice: 'auto' }), 'tool_choice'],
    ['tool_choice none without tools', body({ tool_choice: 'none' }), 'tool_choice'],
    // parallel_tool_calls isn't shaped as described
    ['parallel_tool_calls without tools', body({ parallel_tool_calls: false }), 'parallel_tool_calls'],
    ['parallel_tool_calls not a boolean', withTools({ parallel_tool_calls: 'yes' }), 'parallel_tool_calls'],
    // max_tokens isn't a positive whole number
    ['max_tokens 0', body({ max_tokens: 0 }), 'max_tokens'],
    ['max_tokens -1', body({ max_tokens: -1 }), 'max_tokens'],
    ['max_tokens 1.5', body({ max_tokens: 1.5 }), 'max_tokens'],
    ['max_tokens "10"', body({ max_tokens: '10' }), 'max_tokens'],
    ['max_completion_tokens 0', body({ max_completion_tokens: 0 }), 'max_completion_tokens'],
  ])('refuses %s', async (_name, json, param) => {
    await expectValidation400(await post(json), param)
  })

  it('refuses an X-Mortar-Optimize value Mortar does not recognise, naming the header', async () => {
    const error = await expectValidation400(await post(body(), { 'X-Mortar-Optimize': 'aggressive' }), 'X-Mortar-Optimize')
    expect(error.message).toContain('aggressive')
  })

  it.each(['shadow', 'json-tool-blocks,bogus', 'on,off', ''])('refuses X-Mortar-Optimize %j', async (value) => {
    await expectValidation400(await post(body(), { 'X-Mortar-Optimize': value }), 'X-Mortar-Optimize')
  })
})

describe('accepted at each boundary', () => {
  it.each([1, 512])('accepts %i messages', async (n) => {
    await completion(await post({ messages: manyMessages(n), stream: false, max_tokens: 1 }))
  })

  it('accepts 128 tools, and a tool name of 64 characters', async () => {
    const tools = manyTools(127).concat(tool('n'.repeat(64)))
    const { json } = await completion(await post(body({ tools, tool_choice: { type: 'function', function: { name: 'n'.repeat(64) } } })))
    const calls = (json.choices as Array<{ message: { tool_calls?: Array<{ function: { name: string } }> } }>)[0]?.message.tool_calls
    expect(calls?.map((c) => c.function.name)).toEqual(['n'.repeat(64)])
  })

  it('accepts an assistant message with 128 tool calls and null content', async () => {
    await completion(
      await post({
        messages: [user('go'), { role: 'assistant', content: null, tool_calls: manyCalls(128) }, user('thanks')],
        stream: false,
        max_tokens: 1,
      }),
    )
  })

  it.each<[string, unknown]>([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    ['the object form', { type: 'function', function: { name: 'get_time' } }],
  ])('accepts tool_choice %s with tools', async (_name, toolChoice) => {
    await completion(await post(withTools({ tool_choice: toolChoice, parallel_tool_calls: true })))
  })

  it('honours max_tokens 1: one token, cut with length', async () => {
    const { finish, usage } = await completion(await post(body({ messages: [user('one two three four five')], max_tokens: 1 })))
    expect(finish).toBe('length')
    expect(usage.completion_tokens).toBe(1)
  })

  it('joins array content parts with line breaks and drops parts without text', async () => {
    const parts = [
      { type: 'text', text: 'first line' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'text', text: 'second line' },
    ]
    const fromParts = await completion(await post(body({ messages: [user(parts)] })))
    const fromString = await completion(await post(body({ messages: [user('first line\nsecond line')] })))
    // The scripted model repeats the last user message's text.
    expect(fromParts.content).toBe('first line\nsecond line')
    expect(fromParts.usage.prompt_tokens).toBe(fromString.usage.prompt_tokens)
  })

  it('defaults stream to true: no stream field gets an event stream', async () => {
    const response = await post({ messages: [user('hello there')] })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = await readEvents(response)
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(dataPayloads(events)[0]?.object).toBe('chat.completion.chunk')
  })
})

describe('what IDE clients send', () => {
  it('accepts developer, max_completion_tokens, stream_options, sampling and unknown fields with stream:false', async () => {
    const response = await post({
      model: DEFAULT_MODEL_ID,
      messages: [
        { role: 'developer', content: 'You are a coding assistant.' },
        { role: 'user', content: [{ type: 'text', text: 'say hello world back to me' }] },
      ],
      stream: false,
      stream_options: { include_usage: true },
      max_completion_tokens: 2,
      temperature: 0.2,
      top_p: 0.95,
      frequency_penalty: 0,
      n: 1,
      seed: 7,
      stop: null,
      response_format: { type: 'text' },
      metadata: { source: 'ide' },
      store: false,
      prediction: { type: 'content', content: 'x' },
      some_future_field: { nested: true },
    })
    const { finish, usage, json } = await completion(response)
    expect(json.model).toBe(DEFAULT_MODEL_ID)
    // max_completion_tokens acted as max_tokens.
    expect(usage.completion_tokens).toBe(2)
    expect(finish).toBe('length')
  })

  it('counts a developer message exactly like a system message', async () => {
    const asDeveloper = await completion(await post(body({ messages: [{ role: 'developer', content: 'Be brief.' }, user()] })))
    const asSystem = await completion(await post(body({ messages: [{ role: 'system', content: 'Be brief.' }, user()] })))
    expect(asDeveloper.usage.prompt_tokens).toBe(asSystem.usage.prompt_tokens)
  })

  it('accepts explicit nulls for optional fields', async () => {
    await completion(
      await post({
        messages: [user()],
        stream: false,
        model: null,
        max_tokens: null,
        tools: null,
        tool_choice: null,
        parallel_tool_calls: null,
        stream_options: null,
        user: null,
      }),
    )
  })
})

describe('X-Mortar-Optimize', () => {
  it.each(['off', 'on', 'json-tool-blocks', 'collapse-spaces', 'json-tool-blocks,collapse-spaces'])(
    'accepts %s',
    async (value) => {
      const response = await post(body(), { 'X-Mortar-Optimize': value })
      await completion(response)
      expect(response.headers.get('x-mortar-optimizer')).toMatch(/^ruleset=\d+; mode=/)
    },
  )
})

describe('413: a body over the limit', () => {
  /** A valid request padded with trailing whitespace (still valid JSON) to exactly `size` bytes. */
  const paddedBody = (size: number): string => {
    const json = JSON.stringify(body())
    return json + ' '.repeat(size - Buffer.byteLength(json))
  }

  it('accepts a body of exactly the limit (8 MiB)', async () => {
    expect(DEFAULT_BODY_LIMIT_BYTES).toBe(8 * 1024 * 1024)
    await completion(await post(paddedBody(DEFAULT_BODY_LIMIT_BYTES)))
  })

  it('refuses a body one byte over the limit with 413, with Content-Length declared', async () => {
    const error = await refusal(await post(paddedBody(DEFAULT_BODY_LIMIT_BYTES + 1)), 413)
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toContain(String(DEFAULT_BODY_LIMIT_BYTES))
  })

  // A connection of its own, written by hand, so that the test sees what the gateway does with the
  // connection after a 413 and no other test shares it. The body is twice the limit, as a client
  // that overshoots sends it: all of it, reading the answer meanwhile.
  const oversize = 2 * DEFAULT_BODY_LIMIT_BYTES

  it.each<[string, boolean]>([
    ['with Content-Length declared', false],
    ['chunked, without Content-Length', true],
  ])('refuses an oversize body sent %s with a clear 413', async (_name, chunked) => {
    const connection = await RawConnection.open(gw.url)
    try {
      void connection.sendPadded(gw.ownerKey, oversize, chunked)
      const response = await connection.readResponse()
      if (response === 'closed') throw new Error('the connection closed without a response')
      const error = await refusal(response, 413)
      expect(error.message).toContain(String(DEFAULT_BODY_LIMIT_BYTES))
    } finally {
      connection.close()
    }
  })

  it.each<[string, boolean]>([
    ['with Content-Length declared', false],
    ['chunked, without Content-Length', true],
  ])('keeps its word on the connection after a 413 for a body sent %s', async (_name, chunked) => {
    const connection = await RawConnection.open(gw.url)
    try {
      const sending = connection.sendPadded(gw.ownerKey, oversize, chunked)
      const refused = await connection.readResponse()
      if (refused === 'closed') throw new Error('the connection closed without a response')
      expect(refused.status).toBe(413)
      // A client that writes its whole body before it reads (Python's requests does) must be able
      // to: a reset while it writes fails that write, and it never reads the 413.
      expect(await sending, 'the gateway reset the connection while the client was still sending its body').toBe('sent')
      if (refused.headers.get('connection')?.toLowerCase() === 'close') {
        // The gateway said it closes the connection: it must do so.
        expect(await connection.readResponse()).toBe('closed')
        return
      }
      // It said keep-alive: it must answer the next request.
      connection.send(gw.ownerKey, JSON.stringify(body()))
      const next = await connection.readResponse()
      if (next === 'closed') throw new Error('the 413 said keep-alive, but the connection closed before the next answer')
      await completion(next)
    } finally {
      connection.close()
    }
  })
})

/**
 * HTTP/1.1 by hand on one socket: requests written as bytes, responses read by Content-Length. Its
 * side stays open when the gateway ends its own, so a body is sent whole whatever the answer.
 */
class RawConnection {
  private buffer = Buffer.alloc(0)
  private closed = false
  /** The gateway ended its side: no more answers come. */
  private ended = false
  private wake: () => void = () => undefined

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data])
      this.wake()
    })
    socket.on('end', () => {
      this.ended = true
      this.wake()
    })
    socket.on('close', () => {
      this.closed = true
      this.wake()
    })
    // A reset surfaces as 'close'; readResponse reports it.
    socket.on('error', () => undefined)
  }

  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url)
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true })
    await once(socket, 'connect')
    return new RawConnection(socket)
  }

  private head(key: string, extra: string): string {
    return `POST ${COMPLETIONS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${extra}\r\n`
  }

  send(key: string, json: string): void {
    this.socket.write(this.head(key, `Content-Length: ${Buffer.byteLength(json)}\r\n`) + json)
  }

  /**
   * A valid request padded with whitespace to `total` bytes, declared up front or chunked. Like
   * fetch and curl, it sends the whole body even when the answer comes first; 'closed' when the
   * connection ended first.
   */
  async sendPadded(key: string, total: number, chunked: boolean): Promise<'sent' | 'closed'> {
    const json = Buffer.from(JSON.stringify(body()))
    const padding = Buffer.alloc(256 * 1024, 0x20)
    this.socket.write(this.head(key, chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${total}\r\n`))
    const write = async (piece: Buffer) => {
      const framed = chunked ? [Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')] : [piece]
      let flushed = true
      for (const part of framed) flushed = this.socket.write(part)
      if (!flushed && !this.closed) {
        await new Promise<void>((resolve) => {
          this.socket.once('drain', resolve)
          this.socket.once('close', resolve)
        })
      }
    }
    await write(json)
    for (let sent = json.length; sent < total && !this.closed; ) {
      const piece = padding.subarray(0, Math.min(padding.length, total - sent))
      sent += piece.length
      await write(piece)
    }
    if (chunked && !this.closed) this.socket.write('0\r\n\r\n')
    return this.closed ? 'closed' : 'sent'
  }

  /** The next response, or 'closed' when the gateway ends the connection before a whole one arrives. */
  async readResponse(): Promise<Response | 'closed'> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end !== -1) {
        const [statusLine = '', ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n')
        const headers = new Headers()
        for (const line of lines) {
          const colon = line.indexOf(':')
          headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
        }
        const length = Number(headers.get('content-length') ?? 0)
        if (this.buffer.length >= end + 4 + length) {
          const bodyBytes = this.buffer.subarray(end + 4, end + 4 + length)
          this.buffer = this.buffer.subarray(end + 4 + length)
          return new Response(bodyBytes, { status: Number(statusLine.split(' ')[1]), headers })
        }
      }
      if (this.closed || this.ended) return 'closed'
      await new Promise<void>((resolve) => (this.wake = resolve))
    }
  }

  close(): void {
    this.socket.destroy()
  }
}

describe('401: missing or bad keys', () => {
  const send = (headers: Record<string, string>) =>
    fetch(`${gw.url}${COMPLETIONS}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body()),
    })

  it.each<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['an unknown key', { Authorization: 'Bearer mk_live_notarealkey000000000000000000' }],
    ['a key that is not a Mortar key', { Authorization: 'Bearer sk-proj-abcdef' }],
    ['Basic instead of Bearer', { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
    ['Bearer with no key', { Authorization: 'Bearer' }],
    ['Bearer and spaces only', { Authorization: 'Bearer    ' }],
    ['the key without Bearer', { Authorization: 'KEY_PLACEHOLDER' }],
    ['two words after Bearer', { Authorization: 'Bearer KEY_PLACEHOLDER extra' }],
  ])('refuses %s', async (_name, headers) => {
    const withKey = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, value.replace('KEY_PLACEHOLDER', gw.ownerKey)]),
    )
    const error = await refusal(await send(withKey), 401)
    expect(error.code).not.toBeNull()
    // The refusal never repeats what was sent as a key.
    expect(error.message).not.toContain('mk_live_notarealkey')
    expect(error.message).not.toContain(gw.ownerKey)
  })

  it('checks the key before the body: a bad body without a key is 401, not 400', async () => {
    const response = await fetch(`${gw.url}${COMPLETIONS}`, { method: 'POST', body: 'not json' })
    await refusal(response, 401)
  })
})

describe('404: model_not_found', () => {
  it('answers an unknown model with the documented message', async () => {
    const error = await refusal(await post(body({ model: 'gpt-4o' })), 404)
    expect(error.message).toBe('The model `gpt-4o` does not exist.')
    expect(error.type).toBe('invalid_request_error')
    expect(error.code).toBe('model_not_found')
  })

  it('names the model exactly as sent', async () => {
    const error = await refusal(await post(body({ model: 'qwen/qwen2.5-7b-instruct' })), 404)
    expect(error.message).toBe('The model `qwen/qwen2.5-7b-instruct` does not exist.')
  })
})

describe('the openai SDK', () => {
  it('surfaces a 400 as OpenAI.BadRequestError with status, code and param', async () => {
    const raw = await refusal(await post({ model: DEFAULT_MODEL_ID, messages: [], stream: false }), 400)
    const error: unknown = await gw
      .client()
      .chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [], stream: false })
      .then(() => undefined, (caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    const badRequest = error as InstanceType<typeof OpenAI.BadRequestError>
    expect(badRequest.status).toBe(400)
    expect(badRequest.param).toBe('messages')
    expect(badRequest.code).toBe(raw.code)
    expect(badRequest.message).toContain('messages')
    expect(badRequest.headers.get('x-should-retry')).toBe('false')
  })

  it('surfaces context_length_exceeded as a BadRequestError with that code', async () => {
    const error: unknown = await gw
      .client()
      .chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'word '.repeat(5000) }], stream: false })
      .then(() => undefined, (caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded')
  })
})
