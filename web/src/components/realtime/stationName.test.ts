import { describe, expect, it } from 'vitest'
import { sharedPrefix, shortNames } from './stationName'

describe('station names where room is short', () => {
  it('drops the beginning every name shares, at a separator', () => {
    const names = ['演示-青海共和5MW跟踪支架地面电站', '演示-苏州吴江1.1MW工商业屋顶电站']
    expect(sharedPrefix(names)).toBe('演示-')
    expect(shortNames(names).get(names[1])).toBe('苏州吴江1.1MW工商业屋顶电站')
  })

  it('keeps names that share nothing up to a separator, or one name alone', () => {
    expect(sharedPrefix(['苏州一号', '苏州二号'])).toBe('')
    expect(sharedPrefix(['演示-青海'])).toBe('')
    expect(sharedPrefix(['演示-', '演示-苏州'])).toBe('')
  })
})
