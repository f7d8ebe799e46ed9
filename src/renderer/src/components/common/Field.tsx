import type { ReactNode } from 'react'

interface FieldProps {
  label: string
  hint?: string | undefined
  problems?: readonly string[] | undefined
  children: ReactNode
  testId?: string | undefined
  /** Spans the whole row of a grid of fields (for values that need the width, like function names). */
  wide?: boolean | undefined
}

/** A labelled control with its hint and what is wrong with it. */
export function Field({ label, hint, problems = [], children, testId, wide = false }: FieldProps) {
  return (
    <label className={`field ${problems.length > 0 ? 'field--invalid' : ''} ${wide ? 'field--wide' : ''}`} data-testid={testId}>
      <span className="field__label">{label}</span>
      {children}
      {hint !== undefined ? <span className="field__hint">{hint}</span> : null}
      {problems.map((problem) => (
        <span key={problem} className="field__problem" role="alert">
          {problem}
        </span>
      ))}
    </label>
  )
}
