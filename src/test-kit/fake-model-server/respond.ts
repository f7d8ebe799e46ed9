import type { FakeBehavior } from './behavior'
import { respondCompletions } from './completions'
import { jsonPieceCount, pause, Reply, sendAnswer, type Exchange } from './reply'
import { fakeResponsesReply } from './responses-reply'
import { SERVER_FAMILIES } from './server-families'

const CHAT_PATH = '/v1/chat/completions'
const RESPONSES_PATH = '/v1/responses'
const COMPLETIONS_PATH = '/v1/completions'

export const isChatRequest = (method: string, pathname: string): boolean => method === 'POST' && pathname === CHAT_PATH

const isResponsesRequest = (method: string, pathname: string, behavior: FakeBehavior): boolean =>
  behavior.speaksResponses && method === 'POST' && pathname === RESPONSES_PATH

const isCompletionsRequest = (method: string, pathname: string, behavior: FakeBehavior): boolean =>
  behavior.completions && method === 'POST' && pathname === COMPLETIONS_PATH

/** A generation request (kept in `requests`): chat completions, and Responses or completions when it offers them. */
export const isGenerationRequest = (method: string, pathname: string, behavior: FakeBehavior): boolean =>
  isChatRequest(method, pathname) || isResponsesRequest(method, pathname, behavior) || isCompletionsRequest(method, pathname, behavior)

/** Answer one request after its body was read, as the exchange's behavior says. */
export async function respond(exchange: Exchange): Promise<void> {
  const { record, behavior } = exchange
  const family = SERVER_FAMILIES[behavior.family]
  if (behavior.mode === 'silent') return // the exchange ends when the caller hangs up (or the server is killed)
  const pathname = record.path.split('?')[0] ?? ''
  const info = (behavior.info ?? family.infoEndpoints(behavior.model ?? 'fake-model', behavior.contextWindow))[`${record.method} ${pathname}`]
  if (info !== undefined) {
    sendAnswer(exchange, { status: 200, contentType: 'application/json', body: JSON.stringify(info) })
    return
  }
  if (isResponsesRequest(record.method, pathname, behavior)) return respondAsResponses(exchange)
  if (!isGenerationRequest(record.method, pathname, behavior)) {
    sendAnswer(exchange, family.notFound(record.method, pathname))
    return
  }
  if (!isChatRequest(record.method, pathname)) return respondCompletions(exchange)
  if (behavior.headersDelayMs > 0) await pause(exchange, behavior.headersDelayMs)
  if (exchange.closed) return

  switch (behavior.mode) {
    case 'error-500':
      sendAnswer(exchange, family.error(500, 'model crashed'))
      return
    case 'error-400':
      sendAnswer(exchange, family.error(400, behavior.errorMessage))
      return
    case 'error-status':
      sendAnswer(exchange, family.error(behavior.errorStatus, behavior.errorMessage))
      return
    case 'never-answer':
      return // the exchange ends when the caller hangs up (or the server is killed)
    default:
      break
  }

  const body = record.body
  if (body === undefined) {
    sendAnswer(exchange, family.error(400, 'request body must be a JSON object'))
    return
  }
  const reply = new Reply(exchange, body)

  switch (behavior.mode) {
    case 'reject-stream-options':
      if ('stream_options' in body) {
        sendAnswer(exchange, family.error(400, 'Unrecognized request argument supplied: stream_options'))
        return
      }
      return normal(reply, body)
    case 'normal':
      return normal(reply, body)
    case 'stall-before-first-token':
      reply.startStream()
      await pause(exchange, behavior.stallMs)
      if (await reply.streamAll()) reply.done()
      return
    case 'die-mid-stream':
      reply.startStream()
      if (await reply.writePaced(reply.frames().slice(0, behavior.dieAfterChunks))) await reply.reset()
      return
    case 'malformed-frame':
      reply.startStream()
      if (!(await reply.write(reply.frames()[0]))) return
      await reply.write('{not json')
      return // stays open until the caller hangs up
    case 'error-event':
      reply.startStream()
      if (!(await reply.write(reply.frames()[0]))) return
      await reply.write(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }))
      reply.end()
      return
    case 'end-without-done':
      reply.startStream()
      if (await reply.streamAll()) reply.end()
      return
    case 'replay': {
      const recording = behavior.replay
      if (recording === null) throw new Error('replay mode needs behavior.replay')
      reply.startStream(recording.contentType)
      // One write per event, as a server flushes each; the last piece may be a partial event.
      for (const piece of recording.body.split(/(?<=\n\n)/)) {
        if (!(await reply.writeRaw(piece, piece.startsWith('data: ') && !piece.startsWith('data: [DONE]')))) return
      }
      if (recording.ending === 'close') reply.end()
      else if (recording.ending === 'reset') await reply.reset()
      return // keep-open: the exchange ends when the caller hangs up
    }
    case 'ignore-max-tokens': {
      reply.startStream()
      if (!(await reply.write(reply.frames()[0]))) return
      await reply.writePaced(forever(reply.pieceFrame({ kind: 'content', text: 'tok ' })))
      return
    }
  }
}

/**
 * POST /v1/responses on a server that speaks it: JSON, or its events on the stream's schedule; in
 * `die-mid-stream` mode the first dieAfterChunks events, then a reset.
 */
async function respondAsResponses(exchange: Exchange): Promise<void> {
  const { record, behavior } = exchange
  const family = SERVER_FAMILIES[behavior.family]
  const body = record.body
  if (body === undefined) {
    sendAnswer(exchange, family.error(400, 'request body must be a JSON object'))
    return
  }
  const model = behavior.model ?? (typeof body.model === 'string' ? body.model : 'fake-model')
  if (body.stream !== true) {
    const kept = { ...behavior, deltas: behavior.deltas.slice(0, jsonPieceCount(behavior, body.max_output_tokens)) }
    sendAnswer(exchange, { status: 200, contentType: 'application/json', body: JSON.stringify(fakeResponsesReply(kept, model, body).object) })
    return
  }
  const answer = fakeResponsesReply(behavior, model, body)
  const reply = new Reply(exchange, body)
  reply.startStream()
  const dies = behavior.mode === 'die-mid-stream'
  const frames = dies ? answer.frames.slice(0, behavior.dieAfterChunks) : answer.frames
  for (const [i, frame] of frames.entries()) {
    if (i > 0) await pause(exchange, behavior.deltaDelayMs)
    if (!(await reply.writeRaw(frame, true))) return
  }
  if (dies) await reply.reset()
  else reply.end()
}

async function normal(reply: Reply, body: Record<string, unknown>): Promise<void> {
  if (body.stream !== true) {
    sendAnswer(reply.exchange, { status: 200, contentType: 'application/json', body: JSON.stringify(reply.completion()) })
    return
  }
  reply.startStream()
  if (await reply.streamAll()) reply.done()
}

function* forever(frame: string): Generator<string> {
  for (;;) yield frame
}
