import { base64ToFloat32 } from '../../../shared/api/embeddings'
import { GatewayError } from '../../errors'
import { countInSlices } from '../../tokens/count-in-slices'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { EmbeddingsJob, EmbeddingsResult } from '../model-backend'
import type { Replica, ReplicaPool } from './replica-pool'
import { lacksPath, upstreamFailed, upstreamUnavailable } from './upstream-errors'
import { readWholeReply } from './whole-reply'
import { errorDetail, noAnswer, postToReplica, readBody, UpstreamConnectError, type UpstreamReply } from './upstream-http'

export const EMBEDDINGS_PATH = '/embeddings'

const ERROR_BODY_LIMIT = 64 * 1024

/** What each replica said when it refused embeddings, to tell every later client the same. */
const saidOf = new WeakMap<Replica, string>()

/**
 * Forward POST /v1/embeddings to a deployment's model servers (docs/embeddings.md). Vectors are
 * always asked for as floats — every server family writes those; some know no base64 — and the
 * gateway encodes them as the client asked. A replica that answers that it has no embeddings
 * (see `lacksEmbeddings`) is remembered as such and not asked again until the catalog is rebuilt;
 * the next replica is tried, and when none serves them the client gets 501
 * `upstream_not_supported` with what the server said.
 */
export async function forwardEmbeddings(pool: ReplicaPool, modelId: string, tokenizer: Tokenizer, job: EmbeddingsJob): Promise<EmbeddingsResult> {
  const tried: string[] = []
  const missing: string[] = []
  let lastDetail = ''
  for (const replica of pool.candidates(undefined)) {
    if (replica.missingPaths.has(EMBEDDINGS_PATH)) {
      missing.push(`${replica.id} (${saidOf.get(replica) ?? 'it answered so before'})`)
      continue
    }
    tried.push(replica.id)
    let res: UpstreamReply
    try {
      res = await send(replica, modelId, job)
    } catch (error) {
      if (!(error instanceof UpstreamConnectError)) throw error
      if (error.kind === 'aborted') return { vectors: [], promptTokens: 0, usageSource: 'estimate' }
      lastDetail = noAnswer(pool, replica, error)
      continue
    }
    pool.markUp(replica)
    const status = res.statusCode ?? 0
    if (status >= 200 && status < 300) return { ...(await readVectors(res, replica, job, tokenizer)), upstream: replica.id }
    const text = await readBody(res, ERROR_BODY_LIMIT).catch(() => '')
    job.observer?.receivedBody(text)
    const detail = errorDetail(text)
    if (lacksEmbeddings(status, text, detail)) {
      const said = `HTTP ${status}: ${detail}`
      replica.missingPaths.add(EMBEDDINGS_PATH)
      saidOf.set(replica, said)
      missing.push(`${replica.id} (${said})`)
      continue
    }
    const failure = upstreamFailed(replica.id, status, detail)
    pool.noteError(replica, failure.message)
    throw failure
  }
  if (missing.length > 0) {
    throw new GatewayError(
      'upstream_not_supported',
      `The model server of \`${modelId}\` serves no embeddings: ${missing.join('; ')}. Serve an embedding model there (vLLM: --runner pooling; llama.cpp: --embeddings) or name another model.`,
      { param: 'model' },
    )
  }
  throw upstreamUnavailable(tried, lastDetail)
}

/**
 * Whether a model server's refusal says it has no embeddings, rather than refusing this request:
 * a missing path as for every endpoint (`lacksPath`: 405, or a 404 that does not name the model —
 * vLLM's `{"detail":"Not Found"}`); 501 (llama.cpp without `--embeddings`); or any refusal saying
 * embeddings are not supported (vLLM serving a generative model).
 */
export function lacksEmbeddings(status: number, body: string, detail: string): boolean {
  if (status === 501 || lacksPath(status, body)) return true
  return status >= 400 && status < 500 && /\bnot\s+support\w*\b.*\bembedding|\bembeddings?\b.*\bnot\s+(?:be\s+)?support/i.test(detail)
}

function send(replica: Replica, modelId: string, job: EmbeddingsJob): Promise<UpstreamReply> {
  const { request } = job
  const text = JSON.stringify({
    ...request.extraFields,
    model: replica.model ?? modelId,
    input: request.inputs,
    encoding_format: 'float',
    ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
  })
  // Encoded once, for the socket and for capture (its size, and a search for sent secrets).
  const body = Buffer.from(text)
  job.observer?.sent(replica.id, text, body)
  return postToReplica(replica, EMBEDDINGS_PATH, body, { accept: 'application/json' }, job.signal).then((res) => {
    job.observer?.responded(res.statusCode ?? 0, res.rawHeaders)
    return res
  })
}

interface UpstreamEmbedding {
  index?: unknown
  embedding?: unknown
}

/** The reply's vectors in input order, and its usage (the server's, else the gateway's count). */
async function readVectors(res: UpstreamReply, replica: Replica, job: EmbeddingsJob, tokenizer: Tokenizer): Promise<Omit<EmbeddingsResult, 'upstream'>> {
  const body = await readWholeReply(res, replica, job.signal)
  if (body === undefined) return { vectors: [], promptTokens: 0, usageSource: 'estimate' }
  const { text } = body
  job.observer?.receivedBody(text, body.bytes)
  const fail = (detail: string) => upstreamFailed(replica.id, res.statusCode ?? 200, detail)
  let reply: { data?: unknown; usage?: { prompt_tokens?: unknown } }
  try {
    reply = JSON.parse(text) as typeof reply
  } catch {
    throw fail('its reply was not valid JSON')
  }
  if (!Array.isArray(reply.data)) throw fail('its reply had no `data` list')
  const { inputs } = job.request
  if (reply.data.length !== inputs.length) throw fail(`its reply had ${reply.data.length} embeddings for ${inputs.length} inputs`)
  const vectors: Array<ArrayLike<number>> = new Array<ArrayLike<number>>(inputs.length)
  for (const [position, item] of (reply.data as UpstreamEmbedding[]).entries()) {
    // Servers list them in input order; `index`, when given, says so outright.
    const index = typeof item?.index === 'number' ? item.index : position
    const vector = vectorOf(item?.embedding)
    if (vector === undefined || index < 0 || index >= inputs.length || vectors[index] !== undefined) {
      throw fail(`its reply's embedding ${position} was not a list of numbers for one input`)
    }
    vectors[index] = vector
  }
  const reported = reply.usage?.prompt_tokens
  if (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0) return { vectors, promptTokens: reported, usageSource: 'upstream' }
  // The server did not count: the gateway does, in slices (the inputs may be megabytes).
  const texts = inputs.filter((input): input is string => typeof input === 'string')
  const tokenIds = inputs.reduce((sum, input) => sum + (typeof input === 'string' ? 0 : input.length), 0)
  const counted = await countInSlices(texts.map((input) => tokenizer.startCount(input)), tokenIds, Number.POSITIVE_INFINITY)
  return { vectors, promptTokens: counted, usageSource: 'estimate' }
}

/** A vector as a server wrote it: numbers, or base64 float32 from a server that sends that anyway. */
function vectorOf(embedding: unknown): ArrayLike<number> | undefined {
  if (typeof embedding === 'string') return base64ToFloat32(embedding)
  if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === 'number')) return undefined
  return embedding as number[]
}
