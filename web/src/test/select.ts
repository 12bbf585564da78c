/** Driving antd selects in component tests (jsdom): open, pick by label, clear. */
import { fireEvent, screen } from '@testing-library/react'

const rootOf = (testId: string) => {
  const select = screen.getByTestId(testId)
  return select.closest('.ant-select') ?? select
}

/** Opens the select `testId` and clicks the option showing `label`. */
export async function choose(testId: string, label: string): Promise<void> {
  const root = rootOf(testId)
  fireEvent.mouseDown(root.querySelector('.ant-select-selector') ?? root)
  const options = await screen.findAllByText(label, { selector: '.ant-select-item-option-content' })
  fireEvent.click(options[options.length - 1])
}

/** Clears the select `testId` (its clear icon). */
export function clearSelect(testId: string): void {
  const root = rootOf(testId)
  const clear = root.querySelector('.ant-select-clear')
  if (!clear) throw new Error(`${testId} has nothing to clear`)
  fireEvent.mouseDown(clear)
  fireEvent.click(clear)
}

/** What the select `testId` shows as chosen (its title), or null. */
export const selectedText = (testId: string): string | null =>
  rootOf(testId).querySelector('.ant-select-content')?.getAttribute('title') ?? null
