import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseChatRequest } from '../../shared/api/chat-request'
import type { GenerationEvent, GenerationEventSink, ModelBackend, StartedGeneration } from '../backends/model-backend'
import { chatGenerationRequest } from '../endpoints/chat-completions/chat-completions-endpoint'
import { GatewayError, modelNotAvailable } from '../errors'
import { GenerationRegistry } from './generation-registry'
import { runGeneration, startGeneration, type GenerationResult, type ReplySink } from './run-generation'

const usage = { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 }

/** A started generation that pushes `events` in order, then calls `after` (to stop or fail mid-reply). */
function started(events: GenerationEvent[], after?: () => void): StartedGeneration {
  return {
    keepAlive: false,
    run: async (sink: GenerationEventSink) => {
      for (const event of events) await sink(event)
      after?.()
    },
  }
}

/** A sink that records what reached it, in order. */
function recorder() {
  const got: string[] = []
  const sink: ReplySink = {
    content: (text) => void got.push(`content:${text}`),
    reasoning: (text) => void got.push(`reasoning:${text}`),
    toolCall: (delta) => void got.push(`tool:${delta.function?.name ?? ''}${delta.function?.arguments ?? ''}`),
  }
  return { got, sink }
}

const live = () => {
  const registry = new GenerationRegistry()
  return { registry, live: registry.register('chatcmpl-1', 'org') }
}

const silenceErrors = () => vi.spyOn(process.stderr, 'write').mockImplementation(() => true)

afterEach(() => vi.restoreAllMocks())

describe('runGeneration', () => {
  it('passes each event to the sink, counts tokens, and keeps the finish reason and usage', async () => {
    const { live: generation } = live()
    const { got, sink } = recorder()
    let firstTokens = 0
    const result = await runGeneration(
      started([
        { kind: 'reasoning', text: 'Hmm', tokens: 1 },
        { kind: 'content', text: 'Hel', tokens: 2 },
        { kind: 'tool_call', delta: { index: 0, function: { name: 'f', arguments: '{}' } }, tokens: 4 },
        { kind: 'content', text: 'lo', tokens: 1 },
        { kind: 'finish', reason: 'stop' },
        { kind: 'usage', usage },
      ]),
      generation,
      sink,
      () => firstTokens++,
    )
    expect(got).toEqual(['reasoning:Hmm', 'content:Hel', 'tool:f{}', 'content:lo'])
    expect(result).toEqual<GenerationResult>({
      outcome: { kind: 'finished', reason: 'stop', derived: false },
      completionTokens: 8,
      reportedUsage: usage,
    })
    expect(firstTokens).toBe(1)
  })

  it('says when the finish reason was derived by the gateway', async () => {
    const result = await runGeneration(started([{ kind: 'finish', reason: 'tool_calls', derived: true }]), live().live, recorder().sink)
    expect(result.outcome).toEqual({ kind: 'finished', reason: 'tool_calls', derived: true })
  })

  it('waits for a sink that asks it to', async () => {
    const order: string[] = []
    let release!: () => void
    const sink: ReplySink = {
      content: (text) => {
        order.push(`sink:${text}`)
        if (text === 'a') return new Promise<void>((resolve) => (release = resolve))
      },
      reasoning: () => {},
      toolCall: () => {},
    }
    const run = runGeneration(
      started([
        { kind: 'content', text: 'a', tokens: 1 },
        { kind: 'content', text: 'b', tokens: 1 },
        { kind: 'finish', reason: 'stop' },
      ]),
      live().live,
      sink,
    )
    await Promise.resolve()
    expect(order).toEqual(['sink:a'])
    release()
    expect((await run).outcome.kind).toBe('finished')
    expect(order).toEqual(['sink:a', 'sink:b'])
  })

  it('is stopped, counting what came before, and drops what the backend pushes after a stop', async () => {
    const { registry, live: generation } = live()
    const { got, sink } = recorder()
    const result = await runGeneration(
      {
        keepAlive: false,
        run: async (push) => {
          await push({ kind: 'content', text: 'one', tokens: 1 })
          registry.stop('chatcmpl-1', 'org')
          await push({ kind: 'content', text: 'two', tokens: 1 })
          await push({ kind: 'finish', reason: 'stop' })
        },
      },
      generation,
      sink,
    )
    expect(got).toEqual(['content:one'])
    expect(result).toEqual({ outcome: { kind: 'stopped', reason: 'stopped' }, completionTokens: 1, reportedUsage: undefined })
  })

  it('reports a stop as stopped even when the backend then throws', async () => {
    const { registry, live: generation } = live()
    const result = await runGeneration(
      started([{ kind: 'content', text: 'x', tokens: 1 }], () => {
        registry.abort('chatcmpl-1', 'client_disconnected')
        throw new Error('socket closed')
      }),
      generation,
      recorder().sink,
    )
    expect(result.outcome).toEqual({ kind: 'stopped', reason: 'client_disconnected' })
  })

  it('is stopped when it never started', async () => {
    const { registry, live: generation } = live()
    expect((await runGeneration(undefined, generation, recorder().sink)).outcome).toEqual({ kind: 'stopped', reason: 'stopped' })
    registry.stopAll('shutdown')
    expect((await runGeneration(undefined, generation, recorder().sink)).outcome).toEqual({ kind: 'stopped', reason: 'shutdown' })
  })

  it('fails with the GatewayError a backend throws mid-reply, keeping the tokens before it', async () => {
    const broken = modelNotAvailable('m')
    const result = await runGeneration(
      started([{ kind: 'content', text: 'x', tokens: 2 }], () => {
        throw broken
      }),
      live().live,
      recorder().sink,
    )
    expect(result).toEqual({ outcome: { kind: 'failed', error: broken }, completionTokens: 2, reportedUsage: undefined })
  })

  it('turns any other failure into a logged internal error', async () => {
    const stderr = silenceErrors()
    const result = await runGeneration(
      started([], () => {
        throw new TypeError('a bug')
      }),
      live().live,
      recorder().sink,
    )
    expect(result.outcome.kind).toBe('failed')
    const error = result.outcome.kind === 'failed' ? result.outcome.error : undefined
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 500 })
    expect(String(stderr.mock.calls[0]?.[0])).toContain('a bug')
  })

  it('fails when the backend ends without a finish reason', async () => {
    const stderr = silenceErrors()
    const result = await runGeneration(started([{ kind: 'content', text: 'x', tokens: 1 }]), live().live, recorder().sink)
    expect(result.outcome).toMatchObject({ kind: 'failed', error: { status: 500 } })
    expect(String(stderr.mock.calls[0]?.[0])).toContain('without a finish reason')
  })
})

describe('startGeneration', () => {
  const parsed = parseChatRequest({ messages: [{ role: 'user', content: 'Hi' }] })
  if (!parsed.ok) throw new Error(parsed.issue.message)
  const input = { request: chatGenerationRequest(parsed.request), maxTokens: 16, affinityKey: undefined }
  const backend = (start: ModelBackend['start']): ModelBackend => ({ deployment: 'd', start })

  it("hands the backend the generation's own stop signal", async () => {
    const { live: generation } = live()
    const gen = started([])
    let signal: unknown
    const result = await startGeneration(
      backend(async (given) => {
        signal = given.signal
        return gen
      }),
      input,
      generation,
      () => expect.unreachable('not refused'),
    )
    expect(result).toBe(gen)
    expect(signal).toBe(generation.signal)
  })

  it('tells onRefused before rethrowing a refusal', async () => {
    const refusal = modelNotAvailable('m')
    const refused: GenerationResult[] = []
    await expect(
      startGeneration(backend(() => Promise.reject(refusal)), input, live().live, async (r) => void refused.push(r)),
    ).rejects.toBe(refusal)
    expect(refused).toEqual([{ outcome: { kind: 'failed', error: refusal }, completionTokens: 0, reportedUsage: undefined }])
  })

  it('turns an unexpected failure into an internal error', async () => {
    silenceErrors()
    const refused: GenerationResult[] = []
    const thrown = await startGeneration(backend(() => Promise.reject(new Error('boom'))), input, live().live, async (r) => void refused.push(r)).catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(GatewayError)
    expect(thrown).toMatchObject({ status: 500 })
    expect(refused[0]?.outcome).toEqual({ kind: 'failed', error: thrown })
  })

  it('resolves undefined, refusing nothing, when it was stopped before it could start', async () => {
    const { registry, live: generation } = live()
    const result = await startGeneration(
      backend(() => {
        registry.abort('chatcmpl-1', 'client_disconnected')
        return Promise.reject(new Error('aborted'))
      }),
      input,
      generation,
      () => expect.unreachable('a stop is not a refusal'),
    )
    expect(result).toBeUndefined()
  })
})
