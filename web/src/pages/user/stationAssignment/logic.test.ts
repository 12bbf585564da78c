import { describe, expect, it } from 'vitest'
import { assignmentChange } from './logic'

describe('assignment change', () => {
  it('counts stations given and taken away', () => {
    expect(assignmentChange(['1', '2'], ['2', '3', '4'])).toEqual({ added: 2, removed: 1 })
    expect(assignmentChange([], [])).toEqual({ added: 0, removed: 0 })
    expect(assignmentChange(['1'], [])).toEqual({ added: 0, removed: 1 })
  })
})
