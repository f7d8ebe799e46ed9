import type { ReactNode } from 'react'
import { MessageText } from './MessageText'

interface FieldProps {
  label: string
  hint?: string | undefined
  problems?: readonly string[] | undefined
  children: ReactNode
  testId?: string | undefined
  /** Spans the whole row of a grid of fields (for values that need the width, like function names). */
  wide?: boolean | undefined
}

/** A labelled control with its hint and what is wrong with it; `backticked` names in either show as code. */
export function Field({ label, hint, problems = [], children, testId, wide = false }: FieldProps) {
  return (
    <label className={`field ${problems.length > 0 ? 'field--invalid' : ''} ${wide ? 'field--wide' : ''}`} data-testid={testId}>
      <span className="field__label">{label}</span>
      {children}
      {hint !== undefined ? (
        <span className="field__hint">
          <MessageText text={hint} />
        </span>
      ) : null}
      {problems.map((problem) => (
        <span key={problem} className="field__problem" role="alert">
          <MessageText text={problem} />
        </span>
      ))}
    </label>
  )
}
