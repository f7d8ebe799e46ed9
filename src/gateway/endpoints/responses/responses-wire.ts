import type { ToolCallDelta, Usage } from '../../../shared/api/chat-response'
import type { ResponsesRequest } from '../../../shared/api/responses-request'
import type { SequencedEvent } from '../../../shared/api/responses-response'
import { ResponsesForm } from '../../backends/upstream/forms/responses-form'
import { internalError, type GatewayError } from '../../errors'
import { OPENAI_ERRORS } from '../../http/error-format'
import { promptJson } from '../../http/json-text'
import type { CompletionContext } from '../../pipeline/completion-context'
import { sseEvent } from '../../sse/frames'
import type { AssembledReply, StreamEncoder, StreamEnding, WireFormat } from '../endpoint'
import { ResponseBuilder, responseUsage, type ResponseEnding } from './response-builder'

/**
 * The Responses API on the wire: named events (`event: response.output_text.delta` + its JSON),
 * in the order ResponseBuilder keeps, with no `[DONE]` — a stream ends with its terminal event.
 * A failure mid-stream is an `error` event, then `response.failed`. The JSON reply is the
 * response object the stream would have ended with. Errors before the reply are OpenAI's envelope.
 */
export const responsesWire: WireFormat = {
  ...OPENAI_ERRORS,
  // A stream that opened (a slow model server's `: ping`) and then failed to start has sent no
  // event yet: its one event is the error, numbered 0.
  streamError: (error) => sseEvent('error', JSON.stringify({ type: 'error', code: error.code, message: error.message, param: error.param, sequence_number: 0 })),
  stream: (context) => new ResponsesStreamEncoder(context),
  json: responseObject,
  jsonBody: (body) => promptJson.encodeEchoing(body, instructionsOf(body)),
}

class ResponsesStreamEncoder implements StreamEncoder {
  private frames: string[] = []
  private readonly builder: ResponseBuilder

  constructor(context: CompletionContext) {
    this.builder = new ResponseBuilder(identityOf(context), responsesRequestOf(context), (event) => {
      this.frames.push(frameOf(event))
    })
  }

  start(): string[] {
    this.builder.start()
    return this.take()
  }

  content(text: string): string[] {
    this.builder.content(text)
    return this.take()
  }

  reasoning(text: string): string[] {
    this.builder.reasoning(text)
    return this.take()
  }

  toolCall(delta: ToolCallDelta): string[] {
    this.builder.toolCall(delta)
    return this.take()
  }

  end(ending: StreamEnding, usage: () => Usage): string[] {
    const responseEnding: ResponseEnding =
      ending.kind === 'finished' ? endingOf(ending.reason) : { kind: 'incomplete', reason: ending.by === 'shutdown' ? 'shutdown' : 'stopped' }
    this.builder.finish(responseEnding, responseUsage(usage()))
    return this.take()
  }

  /** A failure once the stream is open: what there was, as response.failed after an `error` event. */
  error(error: GatewayError, usage: () => Usage): string[] {
    this.builder.finish({ kind: 'failed', code: error.code, message: error.message }, responseUsage(usage()))
    return this.take()
  }

  private take(): string[] {
    const frames = this.frames
    this.frames = []
    return frames
  }
}

/**
 * An event as its frame. The events that carry the response object (created, in_progress and the
 * terminal one) repeat the request's instructions, an agent's whole system prompt: their JSON is
 * the one kept for the model server's body, not quoted again three times per stream.
 */
function frameOf(event: SequencedEvent): string {
  return sseEvent(event.type, promptJson.stringifyEchoing(event, 'response' in event ? event.response.instructions : undefined))
}

/** A response object's instructions (the reply handed on by another instance is plain JSON data). */
function instructionsOf(body: unknown): string | undefined {
  const instructions = typeof body === 'object' && body !== null ? (body as { instructions?: unknown }).instructions : undefined
  return typeof instructions === 'string' ? instructions : undefined
}

/** A finish reason as a Responses ending: cut at the limit or by a filter is `incomplete`, anything else `completed`. */
function endingOf(reason: string): ResponseEnding {
  if (reason === 'length') return { kind: 'incomplete', reason: 'max_output_tokens' }
  if (reason === 'content_filter') return { kind: 'incomplete', reason: 'content_filter' }
  return { kind: 'completed' }
}

function identityOf(context: CompletionContext) {
  return { id: context.id, createdAt: context.created, model: context.model.id }
}

/** The JSON reply: the same builder fed the whole reply, reasoning first, then text, then the calls. */
function responseObject(context: CompletionContext, reply: AssembledReply): unknown {
  const builder = new ResponseBuilder(identityOf(context), responsesRequestOf(context))
  if (reply.reasoning !== '') builder.reasoning(reply.reasoning)
  if (reply.content !== '' || reply.toolCalls.length === 0) builder.content(reply.content)
  reply.toolCalls.forEach((call, index) => builder.toolCall({ index, id: call.id, type: 'function', function: call.function }))
  const ending: ResponseEnding = reply.stopped ? { kind: 'incomplete', reason: 'stopped' } : endingOf(reply.finishReason)
  return builder.response(ending, responseUsage(reply.usage))
}

/**
 * The Responses request a generation came from, for the reply's echo of it (instructions, tools,
 * tool_choice…): its native form holds it.
 */
function responsesRequestOf(context: CompletionContext): ResponsesRequest {
  const form = context.request.forms.find((candidate) => candidate instanceof ResponsesForm)
  if (form === undefined) {
    process.stderr.write('mortar: a Responses reply for a request that did not come in as one\n')
    throw internalError()
  }
  return form.responses
}
