interface TabsProps<T extends string> {
  tabs: ReadonlyArray<{ id: T; label: string }>
  active: T
  onSelect(id: T): void
  testIdPrefix: string
}

export function Tabs<T extends string>({ tabs, active, onSelect, testIdPrefix }: TabsProps<T>) {
  return (
    <div className="tabs" role="tablist">
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          aria-selected={tab.id === active}
          className={`tabs__tab ${tab.id === active ? 'tabs__tab--active' : ''}`}
          onClick={() => onSelect(tab.id)}
          data-testid={`${testIdPrefix}-${tab.id}`}
        >
          {tab.label}
        </button>
      ))}
    </div>
  )
}
