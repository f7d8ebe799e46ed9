interface ChoiceButtonsProps<T extends string> {
  choices: ReadonlyArray<{ id: T; label: string; disabled?: boolean }>
  chosen: T
  onChoose(id: NoInfer<T>): void
  /** Each button's `data-testid` is this followed by its choice's id. */
  testIdPrefix: string
}

/**
 * A few small buttons of which the chosen one is marked active: a choice of format, view or
 * side beside other controls in a bar (a page's sections are `Tabs`).
 */
export function ChoiceButtons<T extends string>({ choices, chosen, onChoose, testIdPrefix }: ChoiceButtonsProps<T>) {
  return (
    <>
      {choices.map((choice) => (
        <button
          key={choice.id}
          type="button"
          className={`button button--small ${choice.id === chosen ? 'button--active' : ''}`}
          disabled={choice.disabled}
          onClick={() => onChoose(choice.id)}
          data-testid={`${testIdPrefix}${choice.id}`}
        >
          {choice.label}
        </button>
      ))}
    </>
  )
}
