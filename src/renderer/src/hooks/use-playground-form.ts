import { useCallback, useMemo, useReducer, useState } from 'react'
import {
  buildPlaygroundRequest,
  defaultPlaygroundForm,
  parseToolsJson,
  type FormProblem,
  type PlaygroundForm,
  type PlaygroundMessage,
} from '../logic/playground/playground-request'

export type PlaygroundFormAction =
  | { type: 'set'; patch: Partial<PlaygroundForm> }
  | { type: 'set-message'; index: number; patch: Partial<PlaygroundMessage> }
  | { type: 'add-message' }
  | { type: 'remove-message'; index: number }
  | { type: 'replace'; form: PlaygroundForm }

export function playgroundFormReducer(form: PlaygroundForm, action: PlaygroundFormAction): PlaygroundForm {
  switch (action.type) {
    case 'set':
      return { ...form, ...action.patch }
    case 'set-message':
      return { ...form, messages: form.messages.map((m, i) => (i === action.index ? { ...m, ...action.patch } : m)) }
    case 'add-message': {
      // Conversations alternate: the next turn is the other side's.
      const last = form.messages.at(-1)
      const role = last?.role === 'user' ? 'assistant' : 'user'
      return { ...form, messages: [...form.messages, { role, content: '' }] }
    }
    case 'remove-message':
      return { ...form, messages: form.messages.filter((_, i) => i !== action.index) }
    case 'replace':
      return action.form
  }
}

export interface PlaygroundFormState {
  form: PlaygroundForm
  /** What the gateway would refuse, per field; empty when the form can be sent. */
  problems: FormProblem[]
  /** Function names from the tools editor, for tool_choice. */
  toolNames: string[]
  set(patch: Partial<PlaygroundForm>): void
  setMessage(index: number, patch: Partial<PlaygroundMessage>): void
  addMessage(): void
  removeMessage(index: number): void
  /** What the form now holds came from elsewhere (a captured request): where, and what changed on the way. */
  note: string | null
  /** A whole new form; its note, or none (editing keeps the note, a new form drops it). */
  replace(form: PlaygroundForm, note?: string | null): void
}

export function usePlaygroundForm(): PlaygroundFormState {
  const [form, dispatch] = useReducer(playgroundFormReducer, undefined, () => defaultPlaygroundForm())
  const [note, setNote] = useState<string | null>(null)
  const built = useMemo(() => buildPlaygroundRequest(form), [form])
  const toolNames = useMemo(() => {
    const parsed = parseToolsJson(form.toolsJson)
    return parsed.ok ? parsed.names : []
  }, [form.toolsJson])

  const set = useCallback((patch: Partial<PlaygroundForm>) => dispatch({ type: 'set', patch }), [])
  const setMessage = useCallback((index: number, patch: Partial<PlaygroundMessage>) => dispatch({ type: 'set-message', index, patch }), [])
  const addMessage = useCallback(() => dispatch({ type: 'add-message' }), [])
  const removeMessage = useCallback((index: number) => dispatch({ type: 'remove-message', index }), [])
  const replace = useCallback((next: PlaygroundForm, nextNote: string | null = null) => {
    dispatch({ type: 'replace', form: next })
    setNote(nextNote)
  }, [])

  return {
    form,
    problems: built.ok ? [] : built.problems,
    toolNames,
    set,
    setMessage,
    addMessage,
    removeMessage,
    note,
    replace,
  }
}
