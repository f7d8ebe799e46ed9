import { argumentsAreJson, hasReply, type AssembledReply } from '../../logic/inspector/assemble-reply'
import { MessageText } from '../common/MessageText'

function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2)
  } catch {
    return args
  }
}

interface ParsedViewProps {
  reply: AssembledReply
  streamed: boolean
  /** Why there is no reply, when the request ended without one (an HTTP error, a network error). */
  noReply?: string | null
}

/** What the frames add up to: the reasoning, the text, the tool calls, how it finished and what it cost. */
export function ParsedView({ reply, streamed, noReply = null }: ParsedViewProps) {
  // A request that got an error instead of a reply has nothing to assemble: say so, instead of an
  // empty box and a list of dashes.
  if (noReply !== null && !hasReply(reply)) {
    return (
      <div className="parsed" data-testid="parsed-view">
        <h3>Assembled reply</h3>
        <p className="muted" data-testid="parsed-no-reply">
          {noReply}
        </p>
      </div>
    )
  }
  return (
    <div className="parsed" data-testid="parsed-view">
      <h3>Assembled reply</h3>
      {reply.reasoning !== '' ? (
        <details className="parsed__reasoning" data-testid="parsed-reasoning" open>
          <summary>Reasoning</summary>
          <pre className="parsed__content">{reply.reasoning}</pre>
        </details>
      ) : null}
      {/* A reply of tool calls only has no text: no empty box for it. */}
      {reply.content !== '' || reply.toolCalls.length === 0 ? (
        <pre className="parsed__content" data-testid="parsed-content">
          {reply.content}
        </pre>
      ) : null}
      {reply.toolCalls.length > 0 ? (
        <div className="parsed__tools">
          <h4>Tool calls</h4>
          {reply.toolCalls.map((call) => (
            <div key={call.index} className="tool-call" data-testid="parsed-tool-call" data-name={call.name}>
              <div>
                <strong>[{call.index}]</strong> <code>{call.name}</code> <code className="muted tool-call__id" data-testid="parsed-tool-call-id">
                  {call.id ?? '(no id)'}
                </code>
                {streamed ? <span className="muted"> · {call.pieces} pieces</span> : null}
                {call.arguments !== '' && !argumentsAreJson(call.arguments) ? (
                  <span className="field__problem"> · arguments are not JSON</span>
                ) : null}
              </div>
              <pre className="code">{prettyArguments(call.arguments)}</pre>
            </div>
          ))}
        </div>
      ) : null}
      <dl className="parsed__facts">
        <dt>finish_reason</dt>
        <dd data-testid="parsed-finish-reason">{reply.finishReason ?? '—'}</dd>
        <dt>usage</dt>
        <dd data-testid="parsed-usage">
          {reply.usage === null
            ? '—'
            : `prompt ${reply.usage.prompt_tokens} · completion ${reply.usage.completion_tokens} · total ${reply.usage.total_tokens}`}
        </dd>
        {streamed ? (
          <>
            {/* A chat stream ends with [DONE]; a Responses stream with its terminal event. */}
            <dt>end of stream</dt>
            <dd data-testid="parsed-done">{reply.sawDone ? 'received' : 'not received'}</dd>
          </>
        ) : null}
        <dt>id</dt>
        <dd>{reply.id ?? '—'}</dd>
        <dt>model</dt>
        <dd>{reply.model ?? '—'}</dd>
      </dl>
      {reply.error !== null ? (
        <div className="parsed__error" data-testid="parsed-error">
          error event: <code>{reply.error.code ?? reply.error.type}</code> <MessageText text={reply.error.message} />
        </div>
      ) : null}
      {reply.anomalies.length > 0 ? (
        <ul className="parsed__anomalies" data-testid="parsed-anomalies">
          {reply.anomalies.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
