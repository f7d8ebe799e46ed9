import { PLAYGROUND_ROLES, type PlaygroundMessage } from '../../logic/playground/playground-request'
import { oneOf } from '../../logic/one-of'

interface MessagesEditorProps {
  system: string
  messages: readonly PlaygroundMessage[]
  problems: string[]
  onSystem(text: string): void
  onMessage(index: number, patch: Partial<PlaygroundMessage>): void
  onAdd(): void
  onRemove(index: number): void
}

export function MessagesEditor({ system, messages, problems, onSystem, onMessage, onAdd, onRemove }: MessagesEditorProps) {
  return (
    <fieldset className="messages" data-testid="messages-editor">
      <legend>Conversation</legend>
      <label className="message message--system">
        <span className="message__role">system</span>
        <textarea
          className="grow"
          rows={2}
          value={system}
          placeholder="System prompt (optional)"
          onChange={(e) => onSystem(e.target.value)}
          data-testid="system-prompt"
        />
      </label>
      {messages.map((message, index) => (
        <div className="message" key={index} data-testid="message">
          <select
            className="message__role"
            aria-label={`Role of message ${index + 1}`}
            value={message.role}
            onChange={(e) => onMessage(index, { role: oneOf(PLAYGROUND_ROLES, e.target.value) ?? message.role })}
            data-testid={`message-${index}-role`}
          >
            <option value="user">user</option>
            <option value="assistant">assistant</option>
            <option value="tool">tool</option>
          </select>
          <div className="message__body">
            {message.role === 'tool' ? (
              <input
                className="message__call-id"
                aria-label={`tool_call_id of message ${index + 1}`}
                placeholder="tool_call_id"
                value={message.toolCallId ?? ''}
                onChange={(e) => onMessage(index, { toolCallId: e.target.value })}
                data-testid={`message-${index}-tool-call-id`}
              />
            ) : null}
            <textarea
              className="grow"
              rows={2}
              aria-label={`Message ${index + 1}`}
              placeholder={message.role === 'tool' ? 'The tool’s result' : message.role === 'assistant' ? 'The assistant’s reply' : 'Your message'}
              value={message.content}
              onChange={(e) => onMessage(index, { content: e.target.value })}
              data-testid={`message-${index}-content`}
            />
            {message.role === 'assistant' && (message.toolCalls ?? '') !== '' ? (
              <label className="message__tool-calls">
                <span className="field__label">tool_calls</span>
                <textarea
                  className="grow code"
                  spellCheck={false}
                  value={message.toolCalls}
                  onChange={(e) => onMessage(index, { toolCalls: e.target.value })}
                  data-testid={`message-${index}-tool-calls`}
                />
              </label>
            ) : null}
          </div>
          <button
            type="button"
            className="button button--icon"
            aria-label={`Remove message ${index + 1}`}
            title="Remove"
            onClick={() => onRemove(index)}
            data-testid={`message-${index}-remove`}
          >
            ×
          </button>
        </div>
      ))}
      {problems.map((problem) => (
        <p key={problem} className="field__problem" role="alert">
          {problem}
        </p>
      ))}
      <button type="button" className="button button--small" onClick={onAdd} data-testid="message-add">
        + Add turn
      </button>
    </fieldset>
  )
}
