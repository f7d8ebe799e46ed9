import type { ReactNode } from 'react'

interface FieldProps {
  label: string
  hint?: string | undefined
  problems?: readonly string[] | undefined
  children: ReactNode
  testId?: string | undefined
}

/** A labelled control with its hint and what is wrong with it. */
export function Field({ label, hint, problems = [], children, testId }: FieldProps) {
  return (
    <label className={`field ${problems.length > 0 ? 'field--invalid' : ''}`} data-testid={testId}>
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
